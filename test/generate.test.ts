import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { bufBin, generatePinned, pluginBin, readTree, repoRoot, run, tempDir } from "./helpers/run.js";

const samples = join(repoRoot, "generated-samples");

describe("buf generate over the pinned protos", () => {
  it("reproduces generated-samples/ byte for byte", () => {
    const out = tempDir("regen");
    const template = readFileSync(join(repoRoot, "buf.gen.yaml"), "utf8").replaceAll(
      "out: generated-samples",
      `out: ${out}`,
    );
    const r = run(bufBin, ["generate", "--template", template]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const fresh = readTree(out);
    const committed = readTree(samples);
    expect([...fresh.keys()].sort()).toEqual([...committed.keys()].sort());
    for (const [name, bytes] of fresh) {
      expect(
        bytes.equals(committed.get(name)!),
        `${name} differs from generated-samples/; run the README's first command`,
      ).toBe(true);
    }
  });

  it("writes 22 v1.0.1 bindings (11 + 11 tenant variants) and 10 v0.3.0 bindings, valid against the shipped schema", () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    const validate = ajv.compile(
      JSON.parse(readFileSync(join(repoRoot, "schemas/routes.schema.json"), "utf8")) as object,
    );
    const v1 = JSON.parse(readFileSync(join(samples, "v1.0.1/a2a_routes.json"), "utf8"));
    const v03 = JSON.parse(readFileSync(join(samples, "v0.3.0/a2a_routes.json"), "utf8"));
    for (const doc of [v1, v03]) expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(v1.routes).toHaveLength(22);
    expect(v1.routes.filter((r: { tenantVariant: boolean }) => r.tenantVariant)).toHaveLength(11);
    expect(new Set(v1.routes.map((r: { operation: string }) => r.operation)).size).toBe(11);
    expect(v03.routes).toHaveLength(10);
    expect(v03.routes.filter((r: { tenantVariant: boolean }) => r.tenantVariant)).toHaveLength(0);
    // camelCase query parameters (spec §11.5)
    const list = v1.routes.find(
      (r: { operation: string; tenantVariant: boolean }) => r.operation === "ListTasks" && !r.tenantVariant,
    );
    expect(list.queryFields.map((q: { jsonName: string }) => q.jsonName)).toEqual([
      "tenant",
      "contextId",
      "status",
      "pageSize",
      "pageToken",
      "historyLength",
      "statusTimestampAfter",
      "includeArtifacts",
    ]);
  });

  it.each([["target=ts"], ["target=js"], ["target=dts"], ["target=js+dts"]])(
    "keeps Markdown and JSON outputs with %s",
    (target) => {
      const out = tempDir("target");
      const r = generatePinned(out, [target]);
      expect(r.stderr).toBe("");
      const files = [...readTree(out).keys()].sort();
      for (const f of [
        "a2a_versions.md",
        "v1.0.1/a2a_routes.json",
        "v1.0.1/a2a_operations.md",
        "v0.3.0/a2a_errors.md",
        "v0.3.0/a2a_overrides.md",
        "v1.0.1/a2a_routes.md",
      ]) {
        expect(files).toContain(f);
      }
      const exts = target
        .replace("target=", "")
        .split("+")
        .map((t) => (t === "dts" ? ".d.ts" : "." + t));
      expect(
        files
          .filter((f) => /_routes\.(d\.ts|ts|js)$/.test(f))
          .map((f) => f.slice(f.indexOf("_routes") + 7))
          .sort(),
      ).toEqual(exts.flatMap((e) => [e, e]).sort());
    },
  );

  it("writes CommonJS with js_import_style=legacy_commonjs", () => {
    const out = tempDir("cjs");
    expect(generatePinned(out, ["target=js", "js_import_style=legacy_commonjs"]).status).toBe(0);
    const js = readFileSync(join(out, "v1.0.1/a2a_routes.js"), "utf8");
    expect(js).toContain("exports.A2AServiceRoutes");
    expect(js).not.toMatch(/^export /m);
  });

  it("emits only what emit= asks for", () => {
    const out = tempDir("emit");
    expect(generatePinned(out, ["emit=docs"]).status).toBe(0);
    const files = [...readTree(out).keys()];
    expect(files.some((f) => f.endsWith(".md"))).toBe(true);
    expect(files.some((f) => f.includes("_routes.json") || f.endsWith(".ts"))).toBe(false);
    // Stubs bring the route table module they import, but not its JSON or docs.
    const stubs = tempDir("emit-stubs");
    expect(generatePinned(stubs, ["emit=stubs"]).status).toBe(0);
    expect([...readTree(stubs).keys()].filter((f) => f.startsWith("v1.0.1/")).sort()).toEqual(
      ["a2a_a2a.ts", "a2a_errors.ts", "a2a_grpc.ts", "a2a_jsonrpc.ts", "a2a_rest.ts", "a2a_routes.ts"].map(
        (f) => "v1.0.1/" + f,
      ),
    );
  });
});

describe("the plugin binary", () => {
  it("prints its version", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
    const r = run("node", [pluginBin, "--version"]);
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe(`protoc-gen-a2a v${pkg.version}\n`);
  });

  // No npm package ships a protoc that runs offline: without one on PATH this test says so and is skipped, except
  // with CI=true (.ci/run installs Debian's protoc), where it fails.
  const hasProtoc = run("sh", ["-c", "command -v protoc"]).status === 0;
  const skipProtoc = !hasProtoc && process.env["CI"] !== "true";
  if (skipProtoc)
    console.log("skipping the protoc --plugin= test: no protoc on PATH (apt-get install protobuf-compiler)");
  it.skipIf(skipProtoc)("works under protoc --plugin=", () => {
    const out = tempDir("protoc");
    const r = run("protoc", [
      `--plugin=protoc-gen-a2a=${pluginBin}`,
      `--a2a_out=${out}`,
      "--a2a_opt=target=ts",
      "-I",
      "proto/staged",
      "v0.3.0/a2a.proto",
      "v1.0.1/a2a.proto",
    ]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const fresh = readTree(out);
    // protoc gives one request for all files, as buf's strategy: all does.
    expect(fresh.get("v1.0.1/a2a_routes.json")!.equals(readFileSync(join(samples, "v1.0.1/a2a_routes.json")))).toBe(
      true,
    );
    expect(existsSync(join(out, "a2a_versions.md"))).toBe(true);
  });
});
