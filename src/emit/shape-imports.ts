/**
 * A message's or enum's shape import, worked out once per descriptor.
 *
 * protoplugin's `GeneratedFile.importShape` works out the names of every type
 * in the descriptor's file on each call; the cross-version emitters ask for the
 * same few shapes hundreds of times. The symbol names the type and the file
 * that declares it, whichever file imports it, and each plugin run builds
 * descriptors of its own, so one symbol per descriptor serves every file.
 */
import type { DescEnum, DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, ImportSymbol } from "@bufbuild/protoplugin";

const imported = new WeakMap<DescMessage | DescEnum, ImportSymbol>();

export function importShape(f: GeneratedFile, d: DescMessage | DescEnum): ImportSymbol {
  const known = imported.get(d);
  if (known !== undefined) return known;
  const symbol = f.importShape(d);
  imported.set(d, symbol);
  return symbol;
}
