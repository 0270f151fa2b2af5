/**
 * The `protoc-gen-a2a` binary outside a protoc or buf run (issue 24): run from a terminal without arguments
 * it does not wait for a request that never comes, but prints the usage on stderr and exits 2 (a real
 * terminal: util-linux `script` runs it on a pseudo-terminal); the usage, `--help`, and `sync --help` (printed
 * on a sync usage error too) say to run `protoc-gen-a2a sync` when buf finds no .proto files, since the
 * plugin never runs then; an unknown command is refused with the list of commands. Child processes, each
 * killed after 20 s.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { pluginBin, repoRoot } from "../helpers/run.js";

const node = (args: string[]) =>
  spawnSync(process.execPath, [pluginBin, ...args], { cwd: repoRoot, encoding: "utf8", timeout: 20_000, input: "" });

const syncHint =
  'If buf says the input "had no .proto files", the A2A protos are not staged yet: run\n' +
  "`protoc-gen-a2a sync <dir>` first, with <dir> the module buf.yaml names (e.g. proto).\n";

describe("protoc-gen-a2a on a terminal, without arguments", () => {
  it("prints the usage with the sync hint on stderr and exits 2 instead of waiting", () => {
    const r = spawnSync("script", ["-qec", `${process.execPath} ${pluginBin}`, "/dev/null"], {
      encoding: "utf8",
      timeout: 20_000,
      input: "",
    });
    expect(r.error, "script ran").toBeUndefined();
    expect(r.signal, "killed: the plugin waited for a request on the terminal").toBeNull();
    expect(r.status).toBe(2);
    const out = r.stdout.replace(/\r\n/g, "\n"); // the terminal's line endings; stderr and stdout are one there
    expect(out).toMatch(/^protoc-gen-a2a: no CodeGeneratorRequest on stdin \(it is a terminal\)\n\nprotoc-gen-a2a v/);
    expect(out).toContain(syncHint);
  });
});

describe("the usage", () => {
  it("--help lists both commands and the sync hint", () => {
    const r = node(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("  protoc-gen-a2a sync <dir>   ");
    expect(r.stdout).toContain("  protoc-gen-a2a docs <openapi>... [--out <dir>]\n");
    expect(r.stdout.endsWith(syncHint)).toBe(true);
  });

  it("sync --help, and a sync usage error, say buf reports no .proto files until sync has run", () => {
    const hint = 'Run it before `buf generate`: until it has run, buf finds no A2A protos and says the input\n  "had';
    expect(node(["sync", "--help"]).stdout).toContain(hint);
    const bad = node(["sync"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(hint);
  });

  it("an unknown command is refused with the list of commands", () => {
    const r = node(["generate"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('protoc-gen-a2a: unknown command "generate"; commands: sync, docs (see --help)\n');
  });

  it("--version still prints the version", () => {
    const r = node(["--version"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^protoc-gen-a2a v\d+\.\d+\.\d+\n$/);
  });
});
