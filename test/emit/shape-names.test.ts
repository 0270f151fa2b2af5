/**
 * shapeNames (src/emit/print/shape-imports.ts) works out a whole file's shape names in one pass, as
 * protoplugin's first naming pass does: each of them is the name protoplugin's own `generatedShapeName`
 * gives (the name protoc-gen-es exports), on the pinned protos and on a file whose types' names collide
 * once "." becomes "_" or are reserved in JavaScript.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { create, createFileRegistry, type DescEnum, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { shapeNames } from "../../dist/emit/print/shape-imports.js";
import { buildImage } from "../helpers/in-process.js";

const protopluginEsm = join(dirname(createRequire(import.meta.url).resolve("@bufbuild/protoplugin")), "../esm");
const { generatedShapeName } = (await import(pathToFileURL(join(protopluginEsm, "names.js")).href)) as {
  generatedShapeName(desc: DescMessage | DescEnum): string;
};

function files(protos: FileDescriptorProto[]): DescFile[] {
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: protos }));
  return protos.map((p) => registry.getFile(p.name)!);
}

/** Each message's and enum's name by shapeNames and by protoplugin, keyed by type name. */
function compare(file: DescFile) {
  const ours = shapeNames(file);
  const types = [...nestedTypes(file)].filter((t) => t.kind === "message" || t.kind === "enum");
  return {
    ours: Object.fromEntries(types.map((t) => [t.typeName, ours.get(t)])),
    protoplugin: Object.fromEntries(types.map((t) => [t.typeName, generatedShapeName(t)])),
  };
}

describe("shapeNames", () => {
  it("names every type of the pinned protos as protoplugin does", () => {
    const all = files(buildImage(["v0.3.0", "v1.0.1"]));
    const a2a = all.filter((f) => f.proto.name.endsWith("a2a.proto"));
    expect(a2a).toHaveLength(2);
    for (const file of all) {
      const { ours, protoplugin } = compare(file);
      expect(ours, file.proto.name).toEqual(protoplugin);
    }
  });

  it("names colliding and reserved names as protoplugin does", () => {
    const message = (name: string, nested: string[] = []) => ({
      name,
      nestedType: nested.map((n) => ({ name: n })),
    });
    const [file] = files([
      create(FileDescriptorSetSchema, {
        file: [
          {
            name: "x/collide.proto",
            package: "x.v1",
            syntax: "proto3",
            messageType: [message("A_B_C"), message("A", ["B_C"]), message("A_B", ["C"]), message("Object")],
            enumType: [{ name: "Array", value: [{ name: "ARRAY_UNSPECIFIED", number: 0 }] }],
          },
        ],
      }).file[0]!,
    ]);
    const { ours, protoplugin } = compare(file!);
    expect(ours).toEqual(protoplugin);
    expect(new Set(Object.values(ours)).size).toBe(Object.keys(ours).length);
    expect(Object.values(ours)).toEqual(expect.arrayContaining(["A_B_C", "A_B_C$", "A_B_C$1"]));
  });
});
