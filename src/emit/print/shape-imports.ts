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
