/**
 * A plugin run loads neither the TypeScript compiler nor the yaml package (README, Start-up; the OpenAPI
 * YAML is printed by src/emit/print/yaml-print.ts): a child process runs the plugin on the pinned protos and lists
 * the CommonJS modules it loaded (the TypeScript compiler and yaml are CommonJS, so an ESM import of them
 * lands in the cache).
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
}));
`;

describe("a plugin run", () => {
  const image = buildImage(["v0.3.0", "v1.0.1"]);
  const loaded = (opt: string[]) => {
    const req = request(image, ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"], ["target=ts", ...opt]);
    const input = Buffer.from(toBinary(CodeGeneratorRequestSchema, req));
    const r = run(process.execPath, ["--input-type=module", "-e", child], { cwd: repoRoot, input });
    expect(r.stderr).not.toMatch(/Error/);
    return JSON.parse(r.stdout.toString("utf8")) as { typescript: boolean; yaml: boolean };
  };

  it("with every output, the OpenAPI documents in YAML, loads neither", () => {
    expect(loaded([])).toEqual({ typescript: false, yaml: false });
  });

  it("with openapi_format=json loads neither", () => {
    expect(loaded(["openapi_format=json"])).toEqual({ typescript: false, yaml: false });
  });
});
