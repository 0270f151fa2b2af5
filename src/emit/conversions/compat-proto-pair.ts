/**
 * Prints one function of the conversion IR (src/compat/conversion-ir.ts): a
 * typed function of the source message `from` (and, when the IR says it takes
 * them, its path `path` and the losses `lost`) that returns the target message
 * as one object literal: every step's value (compat-proto-values.ts), the
 * named transforms' values (compat-proto-transforms.ts), the zero value
 * elsewhere. Lossy fields are reported first, then the transforms' losses.
 * The IR has checked every step against the descriptors; what it has not
 * promised (a member it did not check, a parameter it did not count) is an
 * error of the generator, thrown with the function's place.
 */
import type { DescField, DescMessage, DescOneof } from "@bufbuild/protobuf";
import type { Printable } from "@bufbuild/protoplugin";
import {
  enumNumberAt,
  member,
  planReason,
  type ConversionFunction,
  type ConversionIr,
  type ConversionPair,
  type ConversionStep,
  type ConversionTransform,
  type Direction,
  type Needs,
} from "../../compat/conversion-ir.js";
import { guarded, widthOf } from "../print/code-layout.js";
import { transformWriter, type TransformWriterContext } from "./compat-proto-transforms.js";
import { enumValue, isSet, lit, stepValue, zeroValue, type PathKey, type ValueContext } from "./compat-proto-values.js";
import { lowerFirstWord } from "../print/names.js";

/** What the functions of a module share while they are printed. */
export interface PairEnv {
  readonly ts: boolean;
  readonly ir: ConversionIr;
  /** A runtime helper or type. */
  rt(name: string): Printable;
  /** The type of a message: the newer one's own name, the older one's alias. */
  shape(d: DescMessage): Printable;
}

export interface PairFunction {
  readonly name: string;
  readonly needs: Needs;
  readonly lines: readonly Printable[][];
}

/** The name of a pair's function: the newer message's name, then the direction (`taskToOlder`). */
export const functionName = (p: ConversionPair, dir: Direction) =>
  lowerFirstWord(p.newer.typeName.slice(p.plan.newer.lastIndexOf(".") + 1).replace(/\./g, "_")) +
  (dir === "toOlder" ? "ToOlder" : "ToNewer");

/** The IR function of `pair` in direction `dir`. */
const functionOf = (ir: ConversionIr, pair: ConversionPair, dir: Direction) => ir.functions.get(pair)![dir];

/** Entries of the target literal: member local name → value lines (one line, or several for a long value). */
type Values = Map<string, Printable[][]>;

export function writePairFunction(env: PairEnv, fn: ConversionFunction): PairFunction {
  const { src, out, dir } = fn;
  const toNewer = dir === "toNewer";
  const used = { at: false, lost: false };
  const before: Printable[][] = [];
  const after: Printable[][] = [];
  const values: Values = new Map();
  const internal = (what: string): never => {
    throw new Error(`compat: ${fn.place}: ${src.typeName}: ${what} (the conversion IR did not check it)`);
  };
  const at = (keys: readonly PathKey[]): Printable[] => {
    let up: Printable[] = ["path"];
    for (const k of keys) up = [env.rt("at"), "(", up, ", ", typeof k === "string" ? lit(k) : k.code, ")"];
    return up;
  };
  const uses = (what: "at" | "lost") => {
    used[what] = true;
    if (what === "lost") used.at = true;
  };
  const convert = (p: ConversionPair, value: string, keys: readonly PathKey[]): Printable[] => {
    const n = functionOf(env.ir, p, dir).needs;
    if (n.at) uses("at");
    if (n.lost) uses("lost");
    return [functionName(p, dir), "(", value, ...(n.at ? [", ", ...at(keys)] : []), n.lost ? ", lost)" : ")"];
  };
  // A list through the runtime's loop, which passes one path node to every item, its key set to each index.
  const convertList = (p: ConversionPair, read: string, keys: readonly PathKey[]): Printable[] => {
    const n = functionOf(env.ir, p, dir).needs;
    const name = functionName(p, dir);
    // A function of the item alone is passed as it is (it takes no index, which `map` passes too).
    if (!n.at) return [`${read}.map(${name})`];
    uses(n.lost ? "lost" : "at");
    if (n.lost) return [env.rt("eachTo"), "(", read, ", ", ...at(keys), ", lost, ", name, ")"];
    return [env.rt("eachAt"), "(", read, ", ", ...at(keys), ", ", name, ")"];
  };
  const vc: ValueContext = { toNewer, at, rt: env.rt, convert, convertList, uses };

  writeFieldSteps(env, { out, steps: fn.steps, vc, values, before });
  // The transforms after the field steps, which they may complete.
  for (const step of fn.steps) {
    if (step.op !== "transform") continue;
    const t = step.transform;
    const write = transformWriter(t.name, toNewer);
    write(transformContext(env, fn, t, { before, after, values, at, vc, convert, internal }));
  }
  if (used.at !== fn.needs.at || used.lost !== fn.needs.lost)
    internal(`its code takes ${JSON.stringify(used)}, the IR says ${JSON.stringify(fn.needs)}`);
  const name = functionName(fn.pair, dir);
  return { name, needs: fn.needs, lines: functionLines(env, name, src, out, fn.needs, before, values, after) };
}

/** The copy, enum, pair and lose steps: values of the target literal, and losses reported before it. */
function writeFieldSteps(
  env: PairEnv,
  x: {
    readonly out: DescMessage;
    readonly steps: readonly ConversionStep[];
    readonly vc: ValueContext;
    readonly values: Values;
    readonly before: Printable[][];
  },
): void {
  const { out, vc, values, before } = x;
  const oneofCases = new Map<string, Printable[][]>();
  for (const step of x.steps) {
    if (step.op === "transform") continue;
    const f = step.from;
    if (step.op === "lose") {
      vc.uses("lost");
      before.push([
        `if (${isSet(f, `from.${f.localName}`)}) `,
        env.rt("lose"),
        `(lost, path, ${lit(f.name)}, ${lit(step.reason)});`,
      ]);
      continue;
    }
    const t = step.to;
    if (!f.oneof && !t.oneof) {
      values.set(t.localName, [stepValue(vc, step, `from.${f.localName}`)]);
      continue;
    }
    // A oneof member, or a field written into one: one case of the target's conditional.
    const read = f.oneof ? `from.${f.oneof.localName}.value` : `from.${f.localName}`;
    const v = stepValue(vc, step, read);
    const targetName = t.oneof ? t.oneof.localName : t.localName;
    const cases = oneofCases.get(targetName) ?? [];
    const wrapped = t.oneof ? [`{ case: ${lit(t.localName)}, value: `, ...v, " }"] : v;
    cases.push([`${isSet(f, `from.${f.localName}`)} ? `, ...wrapped]);
    oneofCases.set(targetName, cases);
  }
  for (const [name, cases] of oneofCases) {
    const target = out.oneofs.find((o) => o.localName === name) ?? out.fields.find((x) => x.localName === name)!;
    const zero = zeroValue(target) ?? "undefined";
    values.set(name, [...cases.map((c, i) => (i === 0 ? c : [": ", ...c])), [": ", zero]]);
  }
}

interface TransformInputs {
  readonly before: Printable[][];
  readonly after: Printable[][];
  readonly values: Values;
  readonly at: (keys: readonly PathKey[]) => Printable[];
  readonly vc: ValueContext;
  readonly convert: (p: ConversionPair, value: string, keys: readonly PathKey[]) => Printable[];
  readonly internal: (what: string) => never;
}

function transformContext(
  env: PairEnv,
  fn: ConversionFunction,
  t: ConversionTransform,
  x: TransformInputs,
): TransformWriterContext {
  const { src, out } = fn;
  const toNewer = fn.dir === "toNewer";
  const { ir } = env;
  const srcPackage = toNewer ? ir.plan.older : ir.plan.newer;
  const outPackage = toNewer ? ir.plan.newer : ir.plan.older;
  // Only what the transform's definition lists, which the IR has checked against the pair.
  const listed = (names: readonly string[] | undefined, d: DescMessage, name: string) =>
    (names?.includes(name) && member(d, name)) ||
    x.internal(`the writer of ${t.name} uses "${name}" of ${d.typeName}, which its definition does not list`);
  const need = (d: DescMessage, name: string) => listed(t.side.builds?.[d.name], d, name);
  const outMessage = (typeShort: string) =>
    (t.side.builds?.[typeShort] && ir.messages.get(`${outPackage}.${typeShort}`)) ||
    x.internal(`the writer of ${t.name} builds ${typeShort}, which its definition does not list`);
  return {
    toNewer,
    source: src.name,
    get: (name) => `from.${listed(t.side.reads, src, name).localName}`,
    set(name, value) {
      x.values.set(listed(t.side.writes, out, name).localName, [[value]]);
    },
    before: (...line) => void x.before.push(line),
    beforeIf(cond, stmt, indent = "") {
      for (const l of guarded(cond, stmt, 114 - indent.length)) x.before.push([indent, l]);
    },
    after: (...line) => void x.after.push(line),
    lose(key, reason) {
      x.vc.uses("lost");
      return [
        env.rt("lose"),
        `(lost, path, ${lit(key)}, `,
        ...(typeof reason === "string" ? [lit(reason)] : reason),
        ");",
      ];
    },
    refuse(key, what, reason) {
      x.vc.uses("at");
      return [env.rt("refused"), `(path, ${lit(key)}, ${lit(`${srcPackage}.${what}`)}, ${lit(reason)})`];
    },
    convert(typeShort, value, keys) {
      const p = t.converts.get(typeShort) ?? x.internal(`the transform ${t.name} converts ${typeShort}`);
      return x.convert(p, value, keys);
    },
    enumValue(name, value) {
      const table = t.tables.get(name) ?? x.internal(`the transform ${t.name} converts the enum of "${name}"`);
      const f = listed(t.side.enums, src, name);
      return enumValue(x.vc, f as DescField, table, value, [], name);
    },
    literal: (typeShort, fields) => literalOf(outMessage(typeShort), fields, need),
    type(typeShort, suffix = "") {
      if (!env.ts) return [];
      if (/^[a-z]/.test(typeShort)) return [`: ${typeShort}${suffix}`];
      return [": ", env.shape(outMessage(typeShort)), suffix];
    },
    rt: env.rt,
    planReason: (newerShort, field) =>
      planReason(ir.plan, newerShort, field) ?? x.internal(`the transform ${t.name} reports ${newerShort}.${field}`),
    enumNumber: (path, valueName) =>
      enumNumberAt(src, path, valueName) ?? x.internal(`the transform ${t.name} reads ${path} = ${valueName}`),
  };
}

/** A target-version message literal on one line: `fields` by proto name, the other members at their zero value. */
function literalOf(
  d: DescMessage,
  fields: Readonly<Record<string, Printable>>,
  need: (d: DescMessage, name: string) => DescField | DescOneof,
): Printable[] {
  const entries = new Map<string, Printable[][]>();
  for (const [name, value] of Object.entries(fields)) entries.set(need(d, name).localName, [[value]]);
  return inlineLiteral(d, entries);
}

/** The members of `d` in order with their values (the zero value where none is given), `$typeName` first. */
function literalEntries(d: DescMessage, values: Values): Printable[][][] {
  const entries: Printable[][][] = [[[`$typeName: ${lit(d.typeName)}`]]];
  for (const m of d.members) {
    const v = values.get(m.localName);
    if (v) {
      const short = v.length === 1 && v[0]!.length === 1 && v[0]![0] === m.localName;
      if (short) entries.push([[m.localName]]);
      else if (v.length === 1) entries.push([[`${m.localName}: `, ...v[0]!]]);
      else entries.push([[`${m.localName}:`], ...v.map((l) => ["  ", ...l])]);
      continue;
    }
    const zero = zeroValue(m);
    if (zero !== undefined) entries.push([[`${m.localName}: ${zero}`]]);
  }
  return entries;
}

/** A literal on one line, for values inside other code. */
function inlineLiteral(d: DescMessage, values: Values): Printable[] {
  const entries = literalEntries(d, values).map((e) => e.flat());
  return ["{ ", ...entries.flatMap((e, i) => (i === 0 ? e : [", ", ...e])), " }"];
}

/** Whether printed code, at any depth, reads the source message `from`. */
const mentionsM = (p: unknown): boolean =>
  typeof p === "string" ? p.includes("from.") && /\bfrom\./.test(p) : Array.isArray(p) && p.some(mentionsM);

/** The whole function: signature, statements before, the literal (returned, or `out` when statements follow). */
function functionLines(
  env: PairEnv,
  name: string,
  src: DescMessage,
  out: DescMessage,
  needs: Needs,
  before: readonly Printable[][],
  values: Values,
  after: readonly Printable[][],
): Printable[][] {
  // A message without fields to read (an empty request) is not read at all.
  const readsM = [before, after, [...values.values()]].some(mentionsM);
  const params: Printable[][] = [];
  if (readsM) params.push(env.ts ? ["from: ", env.shape(src)] : ["from"]);
  if (needs.at) params.push(env.ts ? ["path: ", env.rt("At")] : ["path"]);
  if (needs.lost) params.push(env.ts ? ["lost: ", env.rt("Loss"), "[]"] : ["lost"]);
  const ret = env.ts ? [": ", env.shape(out)] : [];
  const list = params.flatMap((p, i) => (i === 0 ? p : [", ", ...p]));
  const head = [`function ${name}(`, ...list, ")", ...ret, " {"];
  // A parameter a line when the head is too long for one, as a formatter prints it.
  const lines: Printable[][] =
    widthOf(head) <= 120
      ? [head]
      : [[`function ${name}(`], ...params.map((p) => ["  ", ...p, ","]), [")", ...ret, " {"]];
  for (const l of before) lines.push(["  ", ...l]);
  const start: Printable[] =
    after.length > 0 ? ["  const out", ...(env.ts ? [": ", env.shape(out)] : []), " = "] : ["  return "];
  const entries = literalEntries(out, values);
  const flat = entries.every((e) => e.length === 1) ? entries.map((e) => e[0]!) : undefined;
  const oneLine = flat && ["{ ", ...flat.flatMap((e, i) => (i === 0 ? e : [", ", ...e])), " };"];
  if (oneLine && widthOf(start) + widthOf(oneLine) <= 120) lines.push([...start, ...oneLine]);
  else {
    // A member a line, as a formatter prints a literal too long for one.
    lines.push([...start, "{"]);
    for (const e of entries) {
      lines.push(["    ", ...e[0]!], ...e.slice(1).map((l) => ["    ", ...l]));
      lines[lines.length - 1]!.push(",");
    }
    lines.push(["  };"]);
  }
  for (const l of after) lines.push(["  ", ...l]);
  if (after.length > 0) lines.push(["  return out;"]);
  lines.push(["}"]);
  return lines;
}
