/**
 * Each test file's temporary files in one directory of its own, removed after the file (a setup file of
 * vitest.config.ts). os.tmpdir() reads TMPDIR on every call, so whatever a test, a helper or a child process
 * it starts (which inherits the variable) makes under tmpdir() lands there; tempDir() and the helpers need
 * no cleanup of their own. The removal runs after the file's other afterAll hooks (vitest runs them as a
 * stack, and this one is registered first), so the servers and children they stop are gone by then; what
 * cannot be removed is reported on stderr, naming the directory, and fails nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const before = process.env["TMPDIR"];
const root = mkdtempSync(join(tmpdir(), "a2a-test-"));
process.env["TMPDIR"] = root;

afterAll(() => {
  if (before === undefined) delete process.env["TMPDIR"];
  else process.env["TMPDIR"] = before;
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  } catch (e) {
    process.stderr.write(`temp-root: could not remove ${root}: ${e instanceof Error ? e.message : String(e)}\n`);
  }
});
