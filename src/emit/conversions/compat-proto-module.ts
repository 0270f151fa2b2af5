/**
 * Prints, into the messages module of the cross-version modules (compat-module.ts), the conversion IR of a
 * plan (src/compat/conversion-ir.ts): one typed function per pair and direction (compat-proto-pair.ts), the
 * enum tables they use, and `a2aCompat`, the Converter that dispatches a message to its function by type
 * name (the REST and gRPC version bridges use it).
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import type { ConversionIr, ConversionPair } from "../../compat/conversion-ir.js";
import { functionName, writePairFunction, type PairFunction } from "./compat-proto-pair.js";
import { listed } from "../print/code-layout.js";
import { wrapLine } from "../print/wrap-line.js";
import { lit, tableName } from "./compat-proto-values.js";
import { wrappedName, wrappedToNewer, wrappedToOlder, type WrappedPair } from "./compat-proto-wrapped.js";
import { compatJsonModule, protocolModule, runtimeModule } from "../print/runtime-entries.js";
import type { NamespacedShape } from "../print/shape-imports.js";

/** Helpers from the runtime's generated-code entry point; the others come from its main one. */
const compatJsonHelpers = new Set(["at", "At", "eachTo", "lose", "valueJson", "valueOf"]);
const runtimeTypes = new Set(["At", "Loss", "Converter"]);
/** The helpers users also write against: from the main entry; the rest from /protocol. */
const userFacing = new Set(["Loss", "Converter"]);

interface Written {
  readonly pair: ConversionPair;
  readonly toOlder: PairFunction;
  readonly toNewer: PairFunction;
}

/** Prints the conversions and `a2aCompat` (with types or without); `descriptors` are both files' descriptors. */
export function emitProtoConversions(
  f: GeneratedFile,
  ts: boolean,
  ir: ConversionIr,
  /** A message's type, through the namespace import of its version's file. */
  shape: NamespacedShape,
  descriptors: readonly Printable[],
): void {
  const { plan } = ir;
  const rt = (name: string) =>
    f.import(
      name,
      compatJsonHelpers.has(name) ? compatJsonModule : userFacing.has(name) ? runtimeModule : protocolModule,
      runtimeTypes.has(name),
    );
  const env = { ts, ir, rt, shape };
  const written = ir.pairs.map((pair): Written => {
    const fns = ir.functions.get(pair)!;
    return { pair, toOlder: writePairFunction(env, fns.toOlder), toNewer: writePairFunction(env, fns.toNewer) };
  });
  f.print(`// ---- ${plan.older} messages ↔ ${plan.newer} messages ----`);
  f.print();
  if (ir.tables.length > 0) f.print("// Enum values, source number → target number: by value name, else by number.");
  for (const t of ir.tables) {
    const entries = t.entries.map(([from, to]) => `${from}: ${to}`);
    const type = ts ? ": Readonly<Record<number, number>>" : "";
    f.print(`// ${t.from.typeName} → ${t.to.typeName}`);
    for (const line of listed(`const ${tableName(t)}${type} = {`, entries, "};")) f.print(line);
  }
  for (const { toOlder, toNewer } of written) {
    for (const fn of [toOlder, toNewer]) {
      f.print();
      for (const line of fn.lines) for (const l of wrapLine(line)) f.print(...l);
    }
  }
  const wrapped = wrappedPairs(ir, written);
  for (const w of wrapped) {
    for (const lines of [wrappedToOlder({ ts, rt, shape }, w), wrappedToNewer({ ts, rt, shape }, w)]) {
      f.print();
      for (const line of lines) for (const l of wrapLine(line)) f.print(...l);
    }
  }
  printConverter(f, { ts, rt, plan, descriptors }, written, wrapped);
}

/** `a2aCompat`: the runtime's pairConverter over every pair's functions and the wrapped requests'. */
function printConverter(
  f: GeneratedFile,
  c: { ts: boolean; rt: (name: string) => Printable; plan: ConversionIr["plan"]; descriptors: readonly Printable[] },
  written: readonly Written[],
  wrapped: readonly WrappedPair[],
): void {
  f.print();
  f.print(
    f.jsDoc(
      `Converts messages between ${c.plan.older} and ${c.plan.newer}; losses are returned and never dropped silently.`,
    ),
  );
  f.print(
    f.export("const", "a2aCompat"),
    ...(c.ts ? [": ", c.rt("Converter")] : []),
    " = ",
    c.rt("pairConverter"),
    "(",
  );
  // The arguments a line each, as a formatter prints a call too long for one: the descriptors, the pairs'
  // table, the wrapped requests' table.
  f.print("  [", ...c.descriptors.flatMap((d, i) => (i === 0 ? [d] : [", ", d])), "],");
  const pairs = written.map(({ pair }) =>
    row(pair.newer, pair.older, functionName(pair, "toOlder"), functionName(pair, "toNewer")),
  );
  const wrappers = wrapped.map((w) =>
    row(w.newer, w.wrapper, wrappedName(w.wrapper, "ToOlder"), wrappedName(w.wrapper, "ToNewer")),
  );
  for (const table of wrapped.length === 0 ? [pairs] : [pairs, wrappers])
    for (const line of listed("[", table, "],", 120 - 2)) f.print(`  ${line}`);
  f.print(");");
}

/** A row of the converter's table: both type names, then both functions; an item a line if too long for one. */
function row(newer: DescMessage, older: DescMessage, toOlder: string, toNewer: string): string {
  return listed("[", [lit(newer.typeName), lit(older.typeName), toOlder, toNewer], "]", 120 - 5).join("\n");
}

/** The pairs that an older request wraps, with their functions' names and needs. */
function wrappedPairs(ir: ConversionIr, written: readonly Written[]): WrappedPair[] {
  const out: WrappedPair[] = [];
  for (const { pair, toOlder, toNewer } of written) {
    const w = pair.plan.wrappedBy;
    const wrapper = w && ir.messages.get(w.message);
    if (!w || !wrapper) continue;
    out.push({ newer: pair.newer, older: pair.older, wrapper, plan: w, toOlder, toNewer });
  }
  return out;
}
