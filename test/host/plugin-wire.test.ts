/**
 * The binary's wire work (src/host/plugin-wire.ts). withoutImportedSourceInfo: on a buf image of both pinned
 * versions, the request decodes to the same request with the source info of the imported files cleared and
 * that of the generated files kept; a request with nothing to drop, and bytes that are not a well-formed
 * message, come back as they were. encodeResponse: the bytes toBinary writes, for the plugin's real response,
 * for one with an error, and for files with an insertion point or generated code info (left to protobuf-es).
 */
import { clone, create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  CodeGeneratorResponse_Feature,
  CodeGeneratorResponseSchema,
  GeneratedCodeInfoSchema,
} from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { encodeResponse, withoutImportedSourceInfo } from "../../src/host/plugin-wire.js";
import { protocGenA2a } from "../../dist/plugin.js";
import { buildImage, request } from "../helpers/in-process.js";

const image = buildImage(["v0.3.0", "v1.0.1"]);
const generated = ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"];

describe("withoutImportedSourceInfo", () => {
  it("drops the source info of the imported files only", () => {
    const req = request(image, generated, ["target=ts"]);
    const bytes = toBinary(CodeGeneratorRequestSchema, req);
    const stripped = withoutImportedSourceInfo(bytes);
    expect(stripped.length).toBeLessThan(bytes.length * 0.7);
    const expected = clone(CodeGeneratorRequestSchema, req);
    for (const f of expected.protoFile) if (!generated.includes(f.name)) f.sourceCodeInfo = undefined;
    expect(fromBinary(CodeGeneratorRequestSchema, stripped)).toEqual(expected);
    const kept = fromBinary(CodeGeneratorRequestSchema, stripped).protoFile.filter((f) => f.sourceCodeInfo);
    expect(kept.map((f) => f.name).sort()).toEqual(generated);
  });

  it("returns the request as it came when there is nothing to drop, or it is not a well-formed message", () => {
    const all = request(
      image,
      image.map((f) => f.name),
      [],
    );
    const bytes = toBinary(CodeGeneratorRequestSchema, all);
    expect(withoutImportedSourceInfo(bytes)).toBe(bytes);
    const cut = bytes.subarray(0, bytes.length - 7);
    expect(withoutImportedSourceInfo(cut)).toBe(cut);
    const group = Uint8Array.from([0x0b, 0x0c]); // field 1 as a group: a wire type this reader does not take
    expect(withoutImportedSourceInfo(group)).toBe(group);
  });
});

describe("encodeResponse", () => {
  const same = (res: Parameters<typeof encodeResponse>[0]) => {
    const expected = Buffer.from(toBinary(CodeGeneratorResponseSchema, res));
    expect(Buffer.from(encodeResponse(res)).equals(expected)).toBe(true);
  };

  it("writes the bytes toBinary writes for the plugin's response", () => {
    const res = protocGenA2a.run(request(image, generated, ["target=ts"]));
    expect(res.file.length).toBeGreaterThan(20);
    same(res);
  });

  it("writes them for an error, non-ASCII content, an insertion point and generated code info", () => {
    same(create(CodeGeneratorResponseSchema, { error: "no such option" }));
    same(
      create(CodeGeneratorResponseSchema, {
        supportedFeatures: BigInt(CodeGeneratorResponse_Feature.PROTO3_OPTIONAL),
        file: [
          { name: "a.ts", content: "// é ☃ 𝄞\n".repeat(200) },
          { name: "b.ts", content: "" },
          { name: "c.ts", insertionPoint: "imports", content: "x" },
          {
            name: "d.ts",
            content: "y",
            generatedCodeInfo: create(GeneratedCodeInfoSchema, { annotation: [{ path: [1, 2], sourceFile: "d" }] }),
          },
        ],
      }),
    );
  });
});
