/**
 * A message's or enum's shape import, worked out once per descriptor and file.
 *
 * protoplugin's `GeneratedFile.importShape` works out the names of every type
 * in the descriptor's file on each call; the cross-version emitters ask for the
 * same few shapes hundreds of times. Each emitter makes one `shapeImports` for
 * the file it writes, so the cache lives as long as that file's printing and no
 * longer: nothing is kept between files or runs.
 */
import type { DescEnum, DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, ImportSymbol } from "@bufbuild/protoplugin";

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
 * name, after the alias, so that two files' messages of one name need no renaming.
 */
export function namespacedShapes(f: GeneratedFile, aliases: ReadonlyMap<string, string>): NamespacedShape {
  // Worked out once per message while this file is printed, as shapeImports does (importShape names every
  // type of the message's file on each call).
  const names = new Map<DescMessage, string>();
  return (d) => {
    let name = names.get(d);
    if (name === undefined) {
      const alias = aliases.get(d.file.proto.name);
      if (alias === undefined) throw new Error(`${d.typeName}: its file ${d.file.proto.name} is not imported whole`);
      // The symbol is only named here, never printed, so protoplugin imports nothing for it.
      name = `${alias}.${f.importShape(d).name}`;
      names.set(d, name);
    }
    return name;
  };
}
