/**
 * Writes, into the messages module of the cross-version modules (compat-module.ts), the conversions
 * between the older version's proto messages and the newer version's: one
 * typed function per pair and direction (compat-proto-pair.ts), the enum
 * tables they use, and `a2aCompat`, the Converter that dispatches a message
 * to its function by type name (the REST and gRPC version bridges use it).
 * The same writing, without a file, checks before anything is generated that
 * every pair can be written (checkProtoConversions): a pair that cannot is a
 * problem naming the compat entry, the direction and the field.
 */
import type { DescEnum, DescFile, DescMessage } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import type { CompatPlan } from "../../compat/compat-plan.js";
import type { Problems } from "../../generation-error.js";
import {
  functionName,
  writePairFunction,
  type Dir,
  type Needs,
  type PairFunction,
  type ProtoPair,
} from "./compat-proto-pair.js";
import { packed } from "../print/code-layout.js";
import { enumTable, lit, type EnumTable } from "./compat-proto-values.js";
import { wrappedName, wrappedToNewer, wrappedToOlder, type WrappedPair } from "./compat-proto-wrapped.js";
import { compatJsonModule, protocolModule, runtimeModule } from "../print/runtime-entries.js";
import { shapeImports } from "../print/shape-imports.js";

/** Helpers from the runtime's generated-code entry point; the others come from its main one. */
const compatJsonHelpers = new Set(["at", "At", "eachTo", "lose", "valueJson", "valueOf"]);
const runtimeTypes = new Set(["At", "Loss", "Converter"]);
/** The helpers users also write against: from the main entry; the rest from /protocol. */
const userFacing = new Set(["Loss", "Converter"]);

interface Written {
  readonly functions: readonly {
    readonly pair: ProtoPair;
    readonly toOlder: PairFunction;
    readonly toNewer: PairFunction;
  }[];
  readonly tables: readonly EnumTable[];
  readonly problems: readonly string[];
}

/**
 * What each function of a plan takes (its path, the losses), as the check settled it: the plugin hands it
 * to emission, which starts from it and so writes every function once, not once per round.
 */
export type SettledNeeds = ReadonlyMap<string, Needs>;

/** Writes every pair's functions until what each function takes (its path, the losses) is settled. */
function writeAll(
  plan: CompatPlan,
  files: readonly DescFile[],
  ts: boolean,
  rt: (name: string) => Printable,
  shape: (d: DescMessage) => Printable,
  settled: SettledNeeds | undefined,
): Written & { readonly needs: SettledNeeds } {
  const messages = new Map<string, DescMessage>();
  for (const file of files) for (const t of nestedTypes(file)) if (t.kind === "message") messages.set(t.typeName, t);
  const pairs = new Map<string, ProtoPair>();
  const list: ProtoPair[] = [];
  const problems: string[] = [];
  for (const p of plan.pairs) {
    const newer = messages.get(p.newer);
    const older = messages.get(p.older);
    if (!newer || !older) {
      problems.push(`${p.entry ?? `compat pairing of ${p.newer}`}: no descriptor of ${newer ? p.older : p.newer}`);
      continue;
    }
    const pair = { plan: p, newer, older };
    pairs.set(p.newer, pair);
    pairs.set(p.older, pair);
    list.push(pair);
  }
  const needs = new Map<string, Needs>(settled);
  for (let round = 0; ; round++) {
    const tables = new Map<string, EnumTable>();
    const found: string[] = [];
    const env = {
      ts,
      newerPackage: plan.newer,
      olderPackage: plan.older,
      messages,
      pairs,
      planPairs: plan.pairs,
      needs,
      table(from: DescEnum, to: DescEnum, toNewer: boolean) {
        const key = `${from.typeName} ${to.typeName}`;
        const t = tables.get(key) ?? enumTable(from, to, toNewer);
        tables.set(key, t);
        return t;
      },
      rt,
      shape,
      problem: (what: string) => void found.push(what),
    };
    const write = (p: ProtoPair, dir: Dir) => writePairFunction(env, p, dir);
    const functions = list.map((pair) => ({ pair, toOlder: write(pair, "toOlder"), toNewer: write(pair, "toNewer") }));
    let changed = false;
    for (const fn of functions.flatMap((x) => [x.toOlder, x.toNewer])) {
      const known = needs.get(fn.name);
      if (!known || known.at !== fn.needs.at || known.lost !== fn.needs.lost) changed = true;
      needs.set(fn.name, fn.needs);
    }
    if (!changed || round > 10) {
      return { functions, tables: [...tables.values()], problems: [...problems, ...found], needs };
    }
  }
}

/**
 * Collects, as problems, every pair of `plan` whose conversion cannot be written; returns what each
 * function takes, for emitProtoConversions.
 */
export function checkProtoConversions(plan: CompatPlan, files: readonly DescFile[], problems: Problems): SettledNeeds {
  const written = writeAll(
    plan,
    files,
    true,
    (name) => name,
    (d) => d.name,
    undefined,
  );
  for (const p of new Set(written.problems)) problems.add(p);
  return written.needs;
}

/** Prints the conversions and `a2aCompat` (in TypeScript or JavaScript); `descriptors` are both files' descriptors. */
export function emitProtoConversions(
  f: GeneratedFile,
  target: "ts" | "js",
  plan: CompatPlan,
  files: readonly DescFile[],
  descriptors: readonly Printable[],
  settled: SettledNeeds | undefined,
): void {
  const ts = target === "ts";
  const olderTypes = new Map<string, DescMessage>();
  const importShape = shapeImports(f);
  const rt = (name: string) =>
    f.import(
      name,
      compatJsonHelpers.has(name) ? compatJsonModule : userFacing.has(name) ? runtimeModule : protocolModule,
      runtimeTypes.has(name),
    );
  const shape = (d: DescMessage): Printable => {
    if (d.typeName.startsWith(plan.newer + ".")) return importShape(d);
    const alias = `Older${d.name}`;
    olderTypes.set(alias, d);
    return alias;
  };
  const written = writeAll(plan, files, ts, rt, shape, settled);
  if (written.problems.length > 0) throw new Error(`compat: ${written.problems.join("; ")}`);
  f.print(`// ---- ${plan.older} messages ↔ ${plan.newer} messages ----`);
  f.print();
  if (written.tables.length > 0)
    f.print("// Enum values, source number → target number: by value name, else by number.");
  for (const t of written.tables) {
    const entries = t.entries.map(([from, to]) => `${from}: ${to}`);
    const type = ts ? ": Readonly<Record<number, number>>" : "";
    f.print(`// ${t.from.typeName} → ${t.to.typeName}`);
    const one = `const ${t.name}${type} = { ${entries.join(", ")} };`;
    if (one.length <= 120) f.print(one);
    else f.print(`const ${t.name}${type} = {\n`, packed(entries.map((x) => `  ${x},`)).join("\n"), "\n};");
  }
  for (const { toOlder, toNewer } of written.functions) {
    for (const fn of [toOlder, toNewer]) {
      f.print();
      for (const line of fn.lines) f.print(...line);
    }
  }
  const wrapped = wrappedPairs(files, written);
  for (const w of wrapped) {
    for (const lines of [wrappedToOlder({ ts, rt, shape }, w), wrappedToNewer({ ts, rt, shape }, w)]) {
      f.print();
      for (const line of lines) f.print(...line);
    }
  }
  if (ts) {
    // After the functions, so that the newer messages, named first, keep their own names.
    f.print();
    f.print(`// The ${plan.older} messages, by names of their own.`);
    for (const [alias, d] of olderTypes) f.print(`type ${alias} = `, importShape(d), ";");
  }
  printConverter(f, { ts, rt, plan, descriptors }, written, wrapped);
}

/** `a2aCompat`: the runtime's pairConverter over every pair's functions and the wrapped requests'. */
function printConverter(
  f: GeneratedFile,
  c: { ts: boolean; rt: (name: string) => Printable; plan: CompatPlan; descriptors: readonly Printable[] },
  written: Written,
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
    "([",
    ...c.descriptors.flatMap((d, i) => (i === 0 ? [d] : [", ", d])),
    "], [",
  );
  for (const { pair } of written.functions)
    printRow(f, pair.newer, pair.older, functionName(pair, "toOlder"), functionName(pair, "toNewer"));
  if (wrapped.length === 0) {
    f.print("]);");
    return;
  }
  f.print("], [");
  for (const w of wrapped)
    printRow(f, w.newer, w.wrapper, wrappedName(w.wrapper, "ToOlder"), wrappedName(w.wrapper, "ToNewer"));
  f.print("]);");
}

/** A row of the converter's table: both type names, then both functions, on a second line if one is too long. */
function printRow(f: GeneratedFile, newer: DescMessage, older: DescMessage, toOlder: string, toNewer: string): void {
  const names = `[${lit(newer.typeName)}, ${lit(older.typeName)},`;
  const fns = `${toOlder}, ${toNewer}],`;
  if (names.length + fns.length + 3 <= 120) f.print(`  ${names} ${fns}`);
  else f.print(`  ${names}\n    ${fns}`);
}

/** The pairs that an older request wraps, with their functions' names and needs. */
function wrappedPairs(files: readonly DescFile[], written: Written): WrappedPair[] {
  const wrappers = new Map<string, DescMessage>();
  for (const file of files) for (const t of nestedTypes(file)) if (t.kind === "message") wrappers.set(t.typeName, t);
  const out: WrappedPair[] = [];
  for (const { pair, toOlder, toNewer } of written.functions) {
    const w = pair.plan.wrappedBy;
    const wrapper = w && wrappers.get(w.message);
    if (!w || !wrapper) continue;
    out.push({ newer: pair.newer, older: pair.older, wrapper, plan: w, toOlder, toNewer });
  }
  return out;
}
