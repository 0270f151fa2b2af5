/** Runs real tools (buf, protoc, the plugin binary) for the tests. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const pluginBin = join(repoRoot, "bin/protoc-gen-a2a.cjs");
export const bufBin = join(repoRoot, "node_modules/.bin/buf");

/** `timeoutMs`: the child is killed past it (status null), for a run that could otherwise never end. */
export function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; input?: Buffer; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
) {
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd ?? repoRoot,
    input: opts.input,
    env: opts.env ?? process.env,
    maxBuffer: 64 << 20,
    timeout: opts.timeoutMs,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString("utf8") };
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `a2a-${prefix}-`));
}

/** Every file below dir, as relative path → bytes. */
export function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

/** buf generate over the staged pinned protos with our plugin only, into out. */
export function generatePinned(out: string, opt: string[] = ["target=ts"]) {
  const template = JSON.stringify({
    version: "v2",
    inputs: [{ directory: "proto/staged", paths: ["proto/staged/v0.3.0", "proto/staged/v1.0.1"] }],
    plugins: [{ local: ["node", pluginBin], out, strategy: "all", opt }],
  });
  return run(bufBin, ["generate", "--template", template]);
}
