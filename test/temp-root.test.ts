/**
 * The tests' temporary directories (helpers/temp-root.ts): each test file's tmpdir() is a directory of its own,
 * which the children a test starts inherit, so that removing it after the file leaves nothing in the system's.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/run.js";

describe("the tests' temporary directories", () => {
  it("put this file's tmpdir() in a directory of its own, which tempDir() and children use", () => {
    const root = tmpdir();
    expect(basename(root)).toMatch(/^a2a-test-/);
    expect(existsSync(root)).toBe(true);
    expect(dirname(tempDir("probe"))).toBe(root);
    const child = spawnSync(process.execPath, ["-e", "process.stdout.write(require('node:os').tmpdir())"]);
    expect(child.stdout.toString()).toBe(root);
  });
});
