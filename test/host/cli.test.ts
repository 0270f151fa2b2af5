/**
 * The `protoc-gen-a2a` binary outside a protoc or buf run (issue 24): run from a terminal without arguments
 * it does not wait for a request that never comes, but prints the usage on stderr and exits 2 (a real
 * terminal: util-linux `script` runs it on a pseudo-terminal); the usage, `--help`, and `sync --help` (printed
 * on a sync usage error too) say to run `protoc-gen-a2a sync` when buf finds no .proto files, since the
 * plugin never runs then; an unknown command is refused with the list of commands; a folder the system refuses
 * to make (under /proc, where Node's recursive mkdir retried forever) is one line naming it. Child processes,
 * each killed after 20 s.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pluginBin, repoRoot, tempDir } from "../helpers/run.js";
import { specDir } from "../helpers/spec-server.js";

const node = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, [pluginBin, ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: 20_000,
    input: "",
    env,
  });

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

describe("a folder the system refuses to make", () => {
  it("sync and docs stop with one line naming it", () => {
    const sync = node(["sync", "/proc/self/a2a-protos"], { ...process.env, A2A_SPEC_DIR: specDir });
    expect(sync.signal, "killed: the command never ended").toBeNull();
    expect(sync.stderr).toBe("protoc-gen-a2a sync: /proc/self/a2a-protos: cannot make the folder (ENOENT)\n");
    expect(sync.status).toBe(1);
    const openapi = join(repoRoot, "generated-samples/v1.0.1/a2a_openapi.yaml");
    const docs = node(["docs", openapi, "--out", "/proc/self/a2a-site"]);
    expect(docs.signal, "killed: the command never ended").toBeNull();
    expect(docs.stderr).toBe("protoc-gen-a2a docs: /proc/self/a2a-site: cannot make the folder (ENOENT)\n");
    expect(docs.status).toBe(1);
  });

  it("a file in the way is named, before anything runs", () => {
    const file = join(tempDir("cli-in-the-way"), "a-file");
    writeFileSync(file, "in the way\n");
    const sync = node(["sync", join(file, "protos")], { ...process.env, A2A_SPEC_DIR: specDir });
    expect([sync.stderr, sync.status]).toEqual([`protoc-gen-a2a sync: ${file}: cannot make the folder (ENOTDIR)\n`, 1]);
    const openapi = join(repoRoot, "generated-samples/v1.0.1/a2a_openapi.yaml");
    const docs = node(["docs", openapi, "--out", file]);
    expect([docs.stderr, docs.status]).toEqual([`protoc-gen-a2a docs: ${file}: cannot make the folder (ENOTDIR)\n`, 1]);
  });
});
