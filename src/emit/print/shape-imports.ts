/**
 * A message's or enum's shape import, worked out once per descriptor and file.
 *
 * protoplugin's `GeneratedFile.importShape` works out the names of every type
 * in the descriptor's file on each call (its four naming passes); the cross-version emitters ask for the
 * same few shapes hundreds of times. Each emitter makes one `shapeImports` for
 * the file it writes, so the cache lives as long as that file's printing and no
 * longer: nothing is kept between files or runs.
 *
 * Names that are only printed after a namespace alias (`namespacedShapes`) need no import symbol, only the
 * name: those are worked out for a whole proto file at once by protoplugin's first naming pass, the one for
 * shapes, which the later passes (schemas, JSON and valid types) never change:
 *
 *   for each message and enum of the file, in protoplugin's nestedTypes order:
 *     base = its type name without the package, "." → "_"
 *     name = the first of safeIdentifier(base), safeIdentifier(base + "$"), safeIdentifier(base + "$1"), …
 *            not taken by an earlier type of the file
 *
 * test/emit/shape-names.test.ts checks it against protoplugin's own `generatedShapeName`.
 */
import type { DescEnum, DescFile, DescMessage } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import type { GeneratedFile, ImportSymbol } from "@bufbuild/protoplugin";
import { internals } from "../../host/protoplugin-internals.js";

export type ShapeOf = (d: DescMessage | DescEnum) => ImportSymbol;

/** The shape imports of `f`, each worked out on first use. */
export function shapeImports(f: GeneratedFile): ShapeOf {
  const imported = new Map<DescMessage | DescEnum, ImportSymbol>();
  return (d) => {
    let symbol = imported.get(d);
    if (symbol === undefined) {
      symbol = f.importShape(d);
      imported.set(d, symbol);
    }
    return symbol;
  };
}

/** A message's type name as `<alias>.<Shape>`, through a namespace import of its file (see ModuleFiles). */
export type NamespacedShape = (d: DescMessage) => string;

/**
 * The names of messages in the files imported under `aliases` (file name → alias): the shape's own exported
 * name, after the alias, so that two files' messages of one name need no renaming. Only named, never imported
 * one by one: the module imports the files whole (ModuleFiles.openWithNamespaces).
 */
export function namespacedShapes(aliases: ReadonlyMap<string, string>): NamespacedShape {
  // Each file's names worked out once while this module is printed (see the header).
  const names = new Map<DescFile, ReadonlyMap<DescMessage | DescEnum, string>>();
  return (d) => {
    const alias = aliases.get(d.file.proto.name);
    if (alias === undefined) throw new Error(`${d.typeName}: its file ${d.file.proto.name} is not imported whole`);
    let inFile = names.get(d.file);
    if (inFile === undefined) {
      inFile = shapeNames(d.file);
      names.set(d.file, inFile);
    }
    return `${alias}.${inFile.get(d)}`;
  };
}

/** The exported names protoc-gen-es gives the messages and enums of `file` (the rule in the header). */
export function shapeNames(file: DescFile): ReadonlyMap<DescMessage | DescEnum, string> {
  const prefix = file.proto.package === "" ? 0 : file.proto.package.length + 1;
  const taken = new Set<string>();
  const names = new Map<DescMessage | DescEnum, string>();
  for (const desc of nestedTypes(file)) {
    if (desc.kind !== "enum" && desc.kind !== "message") continue;
    const base = desc.typeName.substring(prefix).replace(/\./g, "_");
    let name = internals.safeIdentifier(base);
    for (let i = 1; taken.has(name); i++) name = internals.safeIdentifier(base + (i === 1 ? "$" : `$${i - 1}`));
    taken.add(name);
    names.set(desc, name);
  }
  return names;
}
