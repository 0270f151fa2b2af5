/**
 * The binary runs the bundle that `npm run build` writes (dist/protoc-gen-a2a.cjs, scripts/bundle/bundle.js):
 * the bundle in dist/ is what the built modules bundle to now, byte for byte (so it is neither stale nor made
 * differently from one build to the next), it is one file that node:vm can run (no dynamic import, nothing
 * required but Node's own modules), and the bundled binary answers a request with the bytes that the
 * unbundled plugin's in-process run() gives, failures included. code-cache.test.ts covers the code cache.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema } from "@bufbuild/protobuf/wkt";
import { bundleLoader, bundlePlugin } from "../../scripts/bundle/bundle.js";
import { protocGenA2a } from "../../dist/plugin.js";
import { buildImage, request } from "../helpers/in-process.js";
import { pluginBin, repoRoot, run } from "../helpers/run.js";

describe("the bundle of the binary", () => {
  it("is what dist/ bundles to now, in one file, and so is its loader", async () => {
    const bundles = [await bundlePlugin({ write: false }), await bundleLoader({ write: false })];
    expect(bundles.map((b) => b.path)).toEqual(["dist/protoc-gen-a2a.cjs", "dist/load-bundle.cjs"]);
    for (const bundle of bundles) {
      expect(readFileSync(join(repoRoot, bundle.path)), bundle.path).toEqual(bundle.bytes);
    }
    for (const old of ["dist/chunks", "dist/protoc-gen-a2a.js"])
      expect(existsSync(join(repoRoot, old)), old).toBe(false);
  });

  it("is run by the binary through its loader, both CommonJS requiring nothing but Node's own modules", () => {
    const bin = readFileSync(pluginBin, "utf8");
    expect(bin).toMatch(/^const \{ runBundle \} = require\("\.\.\/dist\/load-bundle\.cjs"\);$/m);
    expect(bin).toMatch(/^runBundle\(join\(__dirname, "\.\.", "dist", "protoc-gen-a2a\.cjs"\)\);$/m);
    for (const file of ["dist/protoc-gen-a2a.cjs", "dist/load-bundle.cjs"]) {
      const bundle = readFileSync(join(repoRoot, file), "utf8");
      expect(bundle, file).not.toMatch(/require\("(?!node:)/);
      expect(bundle, file).not.toMatch(/(?<![.\w`])import\(\s*["'`]/);
      expect(bundle, file).not.toMatch(/import\.meta/);
    }
  });
});

describe("the bundled binary", () => {
  const image = buildImage(["v0.3.0", "v1.0.1"]);
  const files = ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"];

  /** The response bytes of the binary, and of run() in-process (undefined when run() throws: its message then). */
  const both = (opt: string[]) => {
    const req = request(image, files, opt);
    const r = run(process.execPath, [pluginBin], {
      cwd: repoRoot,
      input: Buffer.from(toBinary(CodeGeneratorRequestSchema, req)),
    });
    try {
      const inProcess = Buffer.from(toBinary(CodeGeneratorResponseSchema, protocGenA2a.run(req)));
      return { bin: r.stdout, inProcess, status: r.status, stderr: r.stderr };
    } catch (e) {
      return { bin: r.stdout, error: (e as Error).message, status: r.status, stderr: r.stderr };
    }
  };

  it.each([["target=ts"], ["target=js+dts", "emit=docs+openapi", "openapi_format=json"]])(
    "answers %s with the bytes of the in-process run()",
    (...opt) => {
      const { bin, inProcess, status } = both(opt);
      expect(status).toBe(0);
      expect(inProcess).toBeDefined();
      expect(bin.equals(inProcess!)).toBe(true);
    },
  );

  it("fails as the in-process run() does", () => {
    const { error, status, stderr } = both(["emit=nothing"]);
    expect(status).toBe(1);
    expect(error).toBeDefined();
    expect(stderr).toBe(`protoc-gen-a2a: ${error}\n`);
  });
});
