/**
 * Writes the conversion of one pair in one direction as a typed function of
 * the source message `m` (and, when something in it can be lost or refused,
 * its path `a` and the losses `lost`) that returns the target message as one
 * object literal: every field step's value (compat-proto-values.ts), the
 * named transforms' values (compat-proto-transforms.ts), the zero value
 * elsewhere. Lossy fields are reported first, then the transforms' losses.
 * A step the writer cannot write is a problem naming the compat entry, the
 * direction and the field.
 */
import type { DescEnum, DescField, DescMessage, DescOneof } from "@bufbuild/protobuf";
import type { Printable } from "@bufbuild/protoplugin";
import type { PlanPair, PlanStep } from "../../compat/compat-plan.js";
import { guarded, widthOf } from "../print/code-layout.js";
import { transformWriter, type TransformWriterContext } from "./compat-proto-transforms.js";
import {
  enumValue,
  fieldValue,
  isSet,
  lit,
  zeroValue,
  type EnumTable,
  type PathKey,
  type ValueContext,
} from "./compat-proto-values.js";
import { lowerFirstWord } from "../print/names.js";

export type Dir = "toOlder" | "toNewer";

export interface ProtoPair {
  readonly plan: PlanPair;
  readonly newer: DescMessage;
  readonly older: DescMessage;
}

/** Whether a function takes its path `a` and the losses `lost`. */
export interface Needs {
  at: boolean;
  lost: boolean;
}

/** What the functions of a module share while they are written. */
export interface PairEnv {
  readonly ts: boolean;
  readonly newerPackage: string;
  readonly olderPackage: string;
  readonly messages: ReadonlyMap<string, DescMessage>;
  /** Each pair by either of its type names. */
  readonly pairs: ReadonlyMap<string, ProtoPair>;
  readonly planPairs: readonly PlanPair[];
  /** Each function's needs, as known so far (the module writes until they settle). */
  readonly needs: ReadonlyMap<string, Needs>;
  table(from: DescEnum, to: DescEnum, toNewer: boolean): EnumTable;
  /** A runtime helper or type. */
  rt(name: string): Printable;
  /** The type of a message: the newer one's own name, the older one's alias. */
  shape(d: DescMessage): Printable;
  problem(what: string): void;
}

export interface PairFunction {
  readonly name: string;
  readonly needs: Needs;
  readonly lines: readonly Printable[][];
}

/** The name of a pair's function: the newer message's name, then the direction (`taskToOlder`). */
export const functionName = (p: ProtoPair, dir: Dir) =>
  lowerFirstWord(p.newer.typeName.slice(p.plan.newer.lastIndexOf(".") + 1).replace(/\./g, "_")) +
  (dir === "toOlder" ? "ToOlder" : "ToNewer");

const member = (d: DescMessage, name: string): DescField | DescOneof | undefined =>
  d.fields.find((f) => f.name === name) ?? d.oneofs.find((o) => o.name === name);

/** Entries of the target literal: member local name → value lines (one line, or several for a long value). */
type Values = Map<string, Printable[][]>;

export function writePairFunction(env: PairEnv, pair: ProtoPair, dir: Dir): PairFunction {
  const toNewer = dir === "toNewer";
  const [src, out] = toNewer ? [pair.older, pair.newer] : [pair.newer, pair.older];
  const steps = toNewer ? pair.plan.toNewer : pair.plan.toOlder;
  const place = `${pair.plan.entry ?? `compat pairing of ${pair.newer.typeName}`} (${dir})`;
  const needs: Needs = { at: false, lost: false };
  const before: Printable[][] = [];
  const after: Printable[][] = [];
  const values: Values = new Map();
  let stepName = "";
  const problem = (what: string) => env.problem(`${place}: ${src.typeName}.${stepName}: ${what}`);
  const at = (keys: readonly PathKey[]): Printable[] => {
    let up: Printable[] = ["a"];
    for (const k of keys) up = [env.rt("at"), "(", up, ", ", typeof k === "string" ? lit(k) : k.code, ")"];
    return up;
  };
  const valueContext = {
    toNewer,
    at,
    rt: env.rt,
    table: (from: DescEnum, to: DescEnum) => env.table(from, to, toNewer),
    convert: (d: DescMessage, value: string, keys: readonly PathKey[]) => convert(d, value, keys),
    convertList: (d: DescMessage, read: string, keys: readonly PathKey[]) => convertList(d, read, keys),
    uses: (what: "at" | "lost") => {
      needs[what] = true;
      if (what === "lost") needs.at = true;
    },
    problem,
  };
  function convert(d: DescMessage, value: string, keys: readonly PathKey[]): Printable[] {
    const p = env.pairs.get(d.typeName);
    if (!p) {
      problem(`${d.typeName} has no counterpart to convert it to`);
      return ["undefined"];
    }
    const name = functionName(p, dir);
    const n = env.needs.get(name) ?? { at: false, lost: false };
    if (n.at) valueContext.uses("at");
    if (n.lost) valueContext.uses("lost");
    return [name, "(", value, ...(n.at ? [", ", ...at(keys)] : []), n.lost ? ", lost)" : ")"];
  }
  // A list through the runtime's loop, which passes one path node to every item, its key set to each index.
  function convertList(d: DescMessage, read: string, keys: readonly PathKey[]): Printable[] {
    const item = convert(d, "v", []);
    const p = env.pairs.get(d.typeName);
    const n = p ? env.needs.get(functionName(p, dir)) : undefined;
    if (!p || !n?.at) return [`${read}.map((v) => `, ...item, ")"];
    const name = functionName(p, dir);
    if (n.lost) return [env.rt("eachTo"), "(", read, ", ", ...at(keys), ", lost, ", name, ")"];
    return [env.rt("eachAt"), "(", read, ", ", ...at(keys), ", ", name, ")"];
  }

  writeFieldSteps(env, { src, out, steps, vc: valueContext, values, before }, (name) => {
    stepName = name;
  });

  const transforms = [...new Set(steps.flatMap((s) => (s.op === "transform" ? [s.transform] : [])))];
  for (const name of transforms) {
    stepName = steps.find((s) => s.op === "transform" && s.transform === name)!.from;
    const write = transformWriter(name, toNewer);
    write(transformContext(env, { src, out, toNewer, before, after, values, at, valueContext, convert, problem }));
  }

  const name = functionName(pair, dir);
  return { name, needs, lines: functionLines(env, name, src, out, needs, before, values, after, problem) };
}

/** The copy, message and lossy steps: values of the target literal, and losses reported before it. */
function writeFieldSteps(
  env: PairEnv,
  x: {
    readonly src: DescMessage;
    readonly out: DescMessage;
    readonly steps: readonly PlanStep[];
    readonly vc: ValueContext;
    readonly values: Values;
    readonly before: Printable[][];
  },
  setStep: (name: string) => void,
): void {
  const { src, out, vc, values, before } = x;
  const problem = vc.problem;
  const oneofCases = new Map<string, Printable[][]>();
  for (const step of x.steps) {
    setStep(step.from);
    const f = src.fields.find((x) => x.name === step.from);
    if (!f) {
      problem("no such field");
      continue;
    }
    if (step.op === "lossy") {
      vc.uses("lost");
      before.push([
        `if (${isSet(f, `m.${f.localName}`)}) `,
        env.rt("lose"),
        `(lost, a, ${lit(f.name)}, ${lit(step.reason)});`,
      ]);
    } else if (step.op === "copy" || step.op === "message") {
      const t = out.fields.find((x) => x.name === step.to);
      if (!t) {
        problem(`no target field ${out.typeName}.${step.to}`);
        continue;
      }
      if (!f.oneof && !t.oneof) {
        values.set(t.localName, [fieldValue(vc, f, t, `m.${f.localName}`)]);
        continue;
      }
      // A oneof member, or a field written into one: one case of the target's conditional.
      const read = f.oneof ? `m.${f.oneof.localName}.value` : `m.${f.localName}`;
      const v = fieldValue(vc, f, t, read);
      const targetName = t.oneof ? t.oneof.localName : t.localName;
      const cases = oneofCases.get(targetName) ?? [];
      const wrapped = t.oneof ? [`{ case: ${lit(t.localName)}, value: `, ...v, " }"] : v;
      cases.push([`${isSet(f, `m.${f.localName}`)} ? `, ...wrapped]);
      oneofCases.set(targetName, cases);
    }
  }
  for (const [name, cases] of oneofCases) {
    const target = out.oneofs.find((o) => o.localName === name) ?? out.fields.find((x) => x.localName === name)!;
    const zero = zeroValue(target, problem) ?? "undefined";
    values.set(name, [...cases.map((c, i) => (i === 0 ? c : [": ", ...c])), [": ", zero]]);
  }
}

interface TransformInputs {
  readonly src: DescMessage;
  readonly out: DescMessage;
  readonly toNewer: boolean;
  readonly before: Printable[][];
  readonly after: Printable[][];
  readonly values: Values;
  readonly at: (keys: readonly PathKey[]) => Printable[];
  readonly valueContext: ValueContext;
  readonly convert: (d: DescMessage, value: string, keys: readonly PathKey[]) => Printable[];
  readonly problem: (what: string) => void;
}

function transformContext(env: PairEnv, x: TransformInputs): TransformWriterContext {
  const { src, out, toNewer, valueContext: vc } = x;
  const srcPackage = toNewer ? env.olderPackage : env.newerPackage;
  const outPackage = toNewer ? env.newerPackage : env.olderPackage;
  const need = (d: DescMessage, name: string) => {
    const m = member(d, name);
    if (!m) x.problem(`the transform needs a field or oneof "${name}" in ${d.typeName}`);
    return m;
  };
  const outMessage = (typeShort: string) => {
    const d = env.messages.get(`${outPackage}.${typeShort}`);
    if (!d) x.problem(`the transform needs a message ${outPackage}.${typeShort}`);
    return d;
  };
  return {
    toNewer,
    get: (name) => `m.${need(src, name)?.localName ?? name}`,
    set(name, value) {
      const m = need(out, name);
      if (m) x.values.set(m.localName, [[value]]);
    },
    before: (...line) => void x.before.push(line),
    beforeIf(cond, stmt, indent = "") {
      for (const l of guarded(cond, stmt, 114 - indent.length)) x.before.push([indent, l]);
    },
    after: (...line) => void x.after.push(line),
    lose(key, reason) {
      vc.uses("lost");
      return [
        env.rt("lose"),
        `(lost, a, ${lit(key)}, `,
        ...(typeof reason === "string" ? [lit(reason)] : reason),
        ");",
      ];
    },
    refuse(key, what, reason) {
      vc.uses("at");
      return [env.rt("refused"), `(a, ${lit(key)}, ${lit(`${srcPackage}.${what}`)}, ${lit(reason)})`];
    },
    convert(typeShort, value, keys) {
      const d = env.messages.get(`${srcPackage}.${typeShort}`);
      if (!d) {
        x.problem(`the transform needs a message ${srcPackage}.${typeShort}`);
        return ["undefined"];
      }
      return x.convert(d, value, keys);
    },
    enumValue(name, value) {
      const f = need(src, name);
      const t = need(out, name);
      if (f?.kind !== "field" || f.fieldKind !== "enum" || t?.kind !== "field" || t.fieldKind !== "enum") {
        x.problem(`the transform needs enum fields "${name}" on both sides`);
        return ["0"];
      }
      return enumValue(vc, f, f.enum, t.enum, value, [], name);
    },
    literal: (typeShort, fields) => literalOf(outMessage(typeShort), fields, need, x.problem),
    type(typeShort, suffix = "") {
      if (!env.ts) return [];
      if (/^[a-z]/.test(typeShort)) return [`: ${typeShort}${suffix}`];
      const d = outMessage(typeShort);
      return d ? [": ", env.shape(d), suffix] : [];
    },
    rt: env.rt,
    planReason: (newerShort, field) => planReason(env, newerShort, field, x.problem),
    enumNumber: (path, valueName) => enumNumber(src, path, valueName, x.problem),
  };
}

/** A target-version message literal on one line: `fields` by proto name, the other members at their zero value. */
function literalOf(
  d: DescMessage | undefined,
  fields: Readonly<Record<string, Printable>>,
  need: (d: DescMessage, name: string) => DescField | DescOneof | undefined,
  problem: (what: string) => void,
): Printable[] {
  if (!d) return ["undefined"];
  const entries = new Map<string, Printable[][]>();
  for (const [name, value] of Object.entries(fields)) {
    const m = need(d, name);
    if (m) entries.set(m.localName, [[value]]);
  }
  return inlineLiteral(d, entries, problem);
}

/** The reason of the plan's lossy step for a field of a newer message, toward the older version. */
function planReason(env: PairEnv, newerShort: string, field: string, problem: (what: string) => void): string {
  const p = env.planPairs.find((q) => q.newer === `${env.newerPackage}.${newerShort}`);
  const step = p?.toOlder.find((s) => s.from === field);
  if (step?.op === "lossy") return step.reason;
  problem(`the transform reports ${newerShort}.${field} as the plan does, but the plan has no lossy step for it`);
  return "";
}

/** The number of an enum value (by name, without the prefix) of the enum field at a dotted path from `d`. */
function enumNumber(d: DescMessage, path: string, valueName: string, problem: (what: string) => void): number {
  let at: DescMessage | undefined = d;
  let f: DescField | undefined;
  for (const n of path.split(".")) {
    f = at?.fields.find((y) => y.name === n);
    at = f?.fieldKind === "message" ? f.message : undefined;
  }
  const v = f?.fieldKind === "enum" ? f.enum.values.find((e) => e.localName === valueName) : undefined;
  if (!v) problem(`the transform needs the value ${valueName} of the enum of ${d.typeName}.${path}`);
  return v?.number ?? 0;
}

/** The members of `d` in order with their values (the zero value where none is given), `$typeName` first. */
function literalEntries(d: DescMessage, values: Values, problem: (what: string) => void): Printable[][][] {
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
    const zero = zeroValue(m, problem);
    if (zero !== undefined) entries.push([[`${m.localName}: ${zero}`]]);
  }
  return entries;
}

/** A literal on one line, for values inside other code. */
function inlineLiteral(d: DescMessage, values: Values, problem: (what: string) => void): Printable[] {
  const entries = literalEntries(d, values, problem).map((e) => e.flat());
  return ["{ ", ...entries.flatMap((e, i) => (i === 0 ? e : [", ", ...e])), " }"];
}

/** Whether printed code, at any depth, reads the source message `m`. */
const mentionsM = (p: unknown): boolean =>
  typeof p === "string" ? p.includes("m.") && /\bm\./.test(p) : Array.isArray(p) && p.some(mentionsM);

/** The whole function: signature, statements before, the literal (returned, or `o` when statements follow). */
function functionLines(
  env: PairEnv,
  name: string,
  src: DescMessage,
  out: DescMessage,
  needs: Needs,
  before: readonly Printable[][],
  values: Values,
  after: readonly Printable[][],
  problem: (what: string) => void,
): Printable[][] {
  // A message without fields to read (an empty request) is not read at all.
  const readsM = [before, after, [...values.values()]].some(mentionsM);
  const params: Printable[][] = [];
  if (readsM) params.push(env.ts ? ["m: ", env.shape(src)] : ["m"]);
  if (needs.at) params.push(env.ts ? ["a: ", env.rt("At")] : ["a"]);
  if (needs.lost) params.push(env.ts ? ["lost: ", env.rt("Loss"), "[]"] : ["lost"]);
  const ret = env.ts ? [": ", env.shape(out)] : [];
  const list = params.flatMap((p, i) => (i === 0 ? p : [", ", ...p]));
  const head = [`function ${name}(`, ...list, ")", ...ret, " {"];
  // Parameters on a line of their own when the head is too long for one.
  const lines: Printable[][] =
    widthOf(head) <= 120 ? [head] : [[`function ${name}(`], ["  ", ...list, ","], [")", ...ret, " {"]];
  for (const l of before) lines.push(["  ", ...l]);
  const start: Printable[] =
    after.length > 0 ? ["  const o", ...(env.ts ? [": ", env.shape(out)] : []), " = "] : ["  return "];
  const entries = literalEntries(out, values, problem);
  const flat = entries.every((e) => e.length === 1) ? entries.map((e) => e[0]!) : undefined;
  const oneLine = flat && ["{ ", ...flat.flatMap((e, i) => (i === 0 ? e : [", ", ...e])), " };"];
  if (oneLine && widthOf(start) + widthOf(oneLine) <= 118) lines.push([...start, ...oneLine]);
  else {
    lines.push([...start, "{"]);
    let line: Printable[] = [];
    for (const e of entries) {
      if (e.length > 1) {
        if (line.length > 0) lines.push(line);
        line = [];
        lines.push(["    ", ...e[0]!], ...e.slice(1).map((l) => ["    ", ...l, ""]));
        lines[lines.length - 1]!.push(",");
        continue;
      }
      const item = [...e[0]!, ","];
      if (line.length > 0 && widthOf(line) + 1 + widthOf(item) <= 118) line.push(" ", ...item);
      else {
        if (line.length > 0) lines.push(line);
        line = ["    ", ...item];
      }
    }
    if (line.length > 0) lines.push(line);
    lines.push(["  };"]);
  }
  for (const l of after) lines.push(["  ", ...l]);
  if (after.length > 0) lines.push(["  return o;"]);
  lines.push(["}"]);
  return lines;
}
