/**
 * A plugin run loads neither the TypeScript compiler nor the yaml package (README, Start-up; the OpenAPI
 * YAML is printed by src/emit/print/yaml-print.ts), nor the override validators (the shipped files are checked
 * at build time): a child process runs the plugin on the pinned protos and lists the CommonJS modules it loaded
 * (the TypeScript compiler, yaml and dist/generated/validators.cjs are CommonJS, so an ESM import of them lands
 * in the cache). A file given with overrides= loads yaml and the validators, which check it.
 */
import { describe, expect, it } from "vitest";
import { toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema } from "@bufbuild/protobuf/wkt";
import { buildImage, request } from "../helpers/in-process.js";
import { repoRoot, run } from "../helpers/run.js";

const child = `
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { fromBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema } from "@bufbuild/protobuf/wkt";
const { protocGenA2a } = await import("./dist/plugin.js");
protocGenA2a.run(fromBinary(CodeGeneratorRequestSchema, readFileSync(0)));
const cache = Object.keys(createRequire(import.meta.url).cache);
process.stdout.write(JSON.stringify({
  typescript: cache.some((k) => k.includes("/node_modules/typescript/")),
  yaml: cache.some((k) => k.includes("/node_modules/yaml/")),
  validators: cache.some((k) => k.endsWith("/dist/generated/validators.cjs")),
}));
`;

describe("a plugin run", () => {
  const image = buildImage(["v0.3.0", "v1.0.1"]);
  const loaded = (opt: string[]) => {
    const req = request(image, ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"], ["target=ts", ...opt]);
    const input = Buffer.from(toBinary(CodeGeneratorRequestSchema, req));
    const r = run(process.execPath, ["--input-type=module", "-e", child], { cwd: repoRoot, input });
    expect(r.stderr).not.toMatch(/Error/);
    return JSON.parse(r.stdout.toString("utf8")) as { typescript: boolean; yaml: boolean; validators: boolean };
  };

  it("with every output, the OpenAPI documents in YAML, loads none", () => {
    expect(loaded([])).toEqual({ typescript: false, yaml: false, validators: false });
  });

  it("with openapi_format=json loads none", () => {
    expect(loaded(["openapi_format=json"])).toEqual({ typescript: false, yaml: false, validators: false });
  });

  it("with a file given with overrides= loads yaml and the validators, not the TypeScript compiler", () => {
    // The shipped files, given as the user's.
    const files = ["a2a-v0.3.0", "a2a-v1.0.1", "compat-v0.3.0-v1.0.1"].map(
      (f) => `overrides=proto/overrides/${f}.yaml`,
    );
    const opt = ["default_overrides=false", ...files];
    expect(loaded(opt)).toEqual({ typescript: false, yaml: true, validators: true });
  });
});
