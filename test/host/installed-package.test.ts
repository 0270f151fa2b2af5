/**
 * The generator as a user installs it, without the runtime (issue 24): the generator's tarball alone
 * (`npm pack`; dist/ is built by the test set-up) installed in a fresh folder outside the repository, so that
 * @protoc-gen-a2a/runtime, an optional peer, is not there. Its dist/ imports nothing of the runtime (type
 * imports vanish when built; the generated code imports it, the generator never does); its binary starts
 * and answers a CodeGeneratorRequest of both pinned versions; and its `docs` command renders what it
 * generated once Redocly CLI is installed beside it, and says how to install it when it is not.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema } from "@bufbuild/protobuf/wkt";
import { buildImage, request } from "../helpers/in-process.js";
import { repoRoot, run, tempDir } from "../helpers/run.js";

const work = tempDir("installed");
const user = join(work, "user");
const installed = join(user, "node_modules/protoc-gen-a2a");
const bin = join(installed, "bin/protoc-gen-a2a.cjs");

function sh(cmd: string, args: string[], cwd = user, input?: Buffer) {
  const r = run(cmd, args, { cwd, ...(input ? { input } : {}) });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  return r;
}

beforeAll(() => {
  const packed = sh("npm", ["pack", "--ignore-scripts", "--pack-destination", work, "--json"], repoRoot);
  const [{ filename }] = JSON.parse(packed.stdout.toString("utf8")) as [{ filename: string }];
  mkdirSync(user);
  writeFileSync(join(user, "package.json"), JSON.stringify({ name: "a2a-user", private: true, type: "module" }));
  sh("npm", ["install", join(work, filename), "--no-audit", "--no-fund", "--prefer-offline"]);
}, 300_000);

/** Every .js file below dir. */
const jsFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".js"))
    .map((f) => join(dir, f));

describe("the generator installed without the runtime", () => {
  it("is installed alone: the runtime, an optional peer, is not there", () => {
    expect(existsSync(bin)).toBe(true);
    expect(existsSync(join(user, "node_modules/@protoc-gen-a2a"))).toBe(false);
  });

  it("imports nothing of @protoc-gen-a2a/runtime from its dist/", () => {
    const files = jsFiles(join(installed, "dist"));
    expect(files.length).toBeGreaterThan(50);
    const importsRuntime =
      /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']@protoc-gen-a2a\/runtime/m;
    const offenders = files.filter((f) => importsRuntime.test(readFileSync(f, "utf8")));
    expect(offenders.map((f) => f.slice(installed.length + 1))).toEqual([]);
  });

  it("starts and generates both versions and the cross-version module", () => {
    const image = buildImage(["v0.3.0", "v1.0.1"]);
    const req = request(image, ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"], []);
    const r = sh(process.execPath, [bin], user, Buffer.from(toBinary(CodeGeneratorRequestSchema, req)));
    expect(r.stderr).toBe("");
    const res = fromBinary(CodeGeneratorResponseSchema, r.stdout);
    expect(res.error).toBe("");
    const names = res.file.map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(["a2a_compat.ts", "v1.0.1/a2a_a2a.ts", "v0.3.0/a2a_openapi.yaml"]));
    for (const f of res.file.filter((x) => x.name.endsWith("_openapi.yaml") || x.name.endsWith("_openrpc.json"))) {
      mkdirSync(dirname(join(user, "gen", f.name)), { recursive: true });
      writeFileSync(join(user, "gen", f.name), f.content);
    }
  });
});

describe("protoc-gen-a2a docs, installed", () => {
  const docs = () =>
    run(process.execPath, [bin, "docs", "gen/v0.3.0/a2a_openapi.yaml", "gen/v1.0.1/a2a_openapi.yaml"], {
      cwd: user,
    });

  it("without Redocly CLI: one line saying how to install it, exit 1, nothing written", () => {
    const r = docs();
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "protoc-gen-a2a docs: Redocly CLI (@redocly/cli) is not installed here; it renders the pages. Install it " +
        "beside protoc-gen-a2a (npm install --save-dev @redocly/cli) and run this again; nothing is downloaded " +
        "at run time.\n",
    );
    expect(existsSync(join(user, "docs-site"))).toBe(false);
  });

  it("with Redocly CLI beside it: renders the generated documents into docs-site/", () => {
    mkdirSync(join(user, "node_modules/@redocly"), { recursive: true });
    symlinkSync(join(repoRoot, "node_modules/@redocly/cli"), join(user, "node_modules/@redocly/cli"));
    const r = docs();
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const site = join(user, "docs-site");
    expect(readdirSync(site).sort()).toEqual([
      "index.html",
      "v0.3.0-a2a_openapi.html",
      "v0.3.0-a2a_openapi.yaml",
      "v0.3.0-a2a_openrpc.json",
      "v1.0.1-a2a_openapi.html",
      "v1.0.1-a2a_openapi.yaml",
      "v1.0.1-a2a_openrpc.json",
    ]);
    expect(readFileSync(join(site, "v1.0.1-a2a_openapi.html"), "utf8")).toContain(
      "<title>lf.a2a.v1.A2AService HTTP+JSON (A2A 1.0.1)</title>",
    );
  }, 120_000);
});
