/**
 * The README's "Use it" section, run verbatim in a fresh folder outside the
 * repository, from the two packed tarballs, as a new user would:
 *
 *   npm pack (both packages; prepack builds) → the README's install lines,
 *   with the tarballs in place of the two package names → its sync line
 *   (A2A_SPEC_DIR, the offline source) → its buf.yaml, buf.gen.yaml,
 *   tsconfig.json and every TypeScript block written as files → its generate
 *   lines (buf generate, tsc --strict NodeNext) → a production-only install
 *   (--omit=dev) → the README's server and client over JSON-RPC, HTTP+JSON
 *   and gRPC, streaming included; the two-version server to a v0.3 call;
 *   the conversion snippet; the README client against the example agent.
 *
 * It prints the size of the production node_modules.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readmeBlock, readmeBlocks } from "../helpers/readme.js";
import { repoRoot, run, tempDir } from "../helpers/run.js";

const specDir = process.env["A2A_SPEC_DIR"] ?? join(repoRoot, "../shared/a2a-spec");
const forbiddenInProduction = ["typescript", "handlebars", "ajv", "yaml", "@bufbuild/protoplugin", "protoc-gen-a2a"];
const maxProductionBytes = 15 * 1024 * 1024;

const work = tempDir("consumer");
const user = join(work, "user");
const tarballs: Record<string, string> = {};
const children: ChildProcess[] = [];

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = run(cmd, args, { cwd: user, env: { ...process.env, ...env } });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} (in ${user}) exited ${r.status}:\n${r.stdout}${r.stderr}`);
  return r.stdout.toString("utf8");
}

/** Runs the lines of a README `sh` block, the two package names replaced by the tarballs. */
function runStep(title: string): void {
  for (const line of readmeBlock(title).body.split("\n")) {
    const command = line.replace(/#.*$/, "").trim();
    if (command === "") continue;
    const [cmd, ...args] = command.split(/\s+/);
    const npm = cmd === "npm";
    sh(cmd!, npm ? [...args.map((a) => tarballs[a] ?? a), "--no-audit", "--no-fund", "--prefer-offline"] : args, {
      A2A_SPEC_DIR: specDir,
    });
  }
}

async function freePorts(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 40000);
    const ok = await Promise.all([port, port + 1].map(isFree));
    if (ok.every(Boolean)) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/** Starts `node script` with PORT and resolves once it prints its first line. */
function start(script: string, port: number, cwd = user): Promise<void> {
  const child = spawn(process.execPath, [script], { cwd, env: { ...process.env, PORT: String(port) } });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`${script} exited ${code} before it was ready: ${err}`)));
    setTimeout(() => reject(new Error(`${script} printed nothing in 20 s: ${err}`)), 20_000).unref();
  });
}

const client = (agent: string, binding: string) => sh(process.execPath, ["dist/client.js", agent, binding]);

beforeAll(() => {
  for (const args of [["pack"], ["pack", "-w", "@protoc-gen-a2a/runtime"]]) {
    const out = run("npm", [...args, "--pack-destination", work, "--json"]);
    if (out.status !== 0) throw new Error(`npm ${args.join(" ")}: ${out.stderr}`);
    const [{ name, filename, files }] = JSON.parse(out.stdout.toString()) as [
      { name: string; filename: string; files: { path: string }[] },
    ];
    tarballs[name] = join(work, filename);
    tarballs[`${name}:files`] = files.map((f) => f.path).join("\n");
  }
  mkdirSync(user);
  writeFileSync(join(user, "package.json"), JSON.stringify({ name: "a2a-user", private: true, type: "module" }));
}, 300_000);

afterAll(() => {
  for (const c of children) c.kill();
});

describe("the README's Use it section, from the packed tarballs", () => {
  it("packs both packages with their build output and LICENSE", () => {
    for (const name of ["protoc-gen-a2a", "@protoc-gen-a2a/runtime"]) {
      const files = tarballs[`${name}:files`]!.split("\n");
      expect(files, name).toContain("LICENSE");
      expect(
        files.some((f) => f.startsWith("dist/")),
        `${name} ships dist/`,
      ).toBe(true);
    }
  });

  it("installs, syncs the protos, generates and type-checks (strict, NodeNext)", () => {
    runStep("install");
    for (const b of readmeBlocks().filter((x) => x.title !== undefined && x.lang !== "sh")) {
      mkdirSync(dirname(join(user, b.title!)), { recursive: true });
      writeFileSync(join(user, b.title!), b.body);
    }
    runStep("generate");
    const generated = readdirSync(join(user, "src/gen"), { recursive: true }).map(String).sort();
    expect(generated).toContain("a2a_compat.ts");
    expect(generated).toContain(join("v1.0.1", "a2a_a2a.ts"));
    expect(readdirSync(join(user, "dist"))).toEqual(expect.arrayContaining(["server.js", "client.js"]));
  }, 600_000);

  it("runs with a production-only install of at most 15 MB", () => {
    cpSync(join(user, "package-lock.json"), join(work, "lock.json"));
    execFileSync("rm", ["-rf", join(user, "node_modules")]);
    sh("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline"]);
    const installed = sh("npm", ["ls", "--omit=dev", "--all", "--parseable"]);
    for (const name of forbiddenInProduction) {
      expect(
        installed.split("\n").some((p) => p.endsWith(`/node_modules/${name}`)),
        name,
      ).toBe(false);
    }
    const bytes = Number(
      execFileSync("du", ["-sb", join(user, "node_modules")])
        .toString()
        .split("\t")[0],
    );
    process.stdout.write(`production node_modules: ${(bytes / 1024 / 1024).toFixed(1)} MB\n`);
    expect(bytes).toBeLessThanOrEqual(maxProductionBytes);
  }, 300_000);

  it("serves and calls over JSON-RPC, HTTP+JSON and gRPC, streaming included", async () => {
    const port = await freePorts();
    await start("dist/server.js", port);
    for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
      const out = client(`http://127.0.0.1:${port}`, binding);
      expect(out).toBe(`${binding} sendMessage: message\n${binding} stream: message\n`);
    }
  }, 60_000);

  it("serves a v0.3 client and a v1.0 client with one handler", async () => {
    const port = await freePorts();
    await start("dist/both-versions.js", port);
    const v03 = await fetch(`http://127.0.0.1:${port}/a2a/jsonrpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: { message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] } },
      }),
    });
    const body = (await v03.json()) as { result?: { kind?: string; parts?: unknown[] } };
    expect(body.result?.kind).toBe("message");
    expect(body.result?.parts).toEqual([{ kind: "text", text: "hi" }]);
    expect(client(`http://127.0.0.1:${port}`, "JSONRPC")).toContain("JSONRPC sendMessage: message");
  }, 60_000);

  it("runs the conversion snippet", () => {
    const out = sh(process.execPath, ["dist/convert.js"]);
    expect(out).toMatch(
      /^\{"kind":"task","id":"t1","contextId":"c1","status":\{"state":"completed"\}.*\} \d+ 1 function\n$/,
    );
  });

  it("runs the README client against the example agent", async () => {
    const port = await freePorts();
    await start(join(repoRoot, "dist-examples/examples/echo-agent/main.js"), port, repoRoot);
    for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
      expect(client(`http://127.0.0.1:${port}`, binding)).toMatch(
        new RegExp(`^${binding.replace("+", "\\+")} sendMessage: task\n`),
      );
    }
  }, 60_000);
});
