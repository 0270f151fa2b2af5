/**
 * The conversion IR of the proto messages: per pair of the plan and per
 * direction, one function, as the steps the writers print (emit/conversions).
 * It is derived from the plan (compat-plan.ts), the transforms' definitions
 * (transforms.ts) and the request's descriptors, and checked here: a step the
 * descriptors cannot carry is a problem naming the compat entry, the
 * direction and the field, reported through Problems before anything is
 * written. Nothing is printed to find problems.
 *
 *   function  = { step | transform }      (in the plan's order)
 *   step      = copy                      the value as it is (scalars, lists and maps of them,
 *                                         well-known types, a message of the same type)
 *             | enum    table             an enum, or a list of them, by value name
 *             | pair    function          a message, a list or a map of them, by their pair's function
 *             | lose    reason            reported when set, not written
 *   transform = name, the field that names it in the plan, what it does (transforms.ts)
 *
 * What each function takes besides its message (`at`: its path; `lost`: the
 * losses, which imply the path) follows from its steps: a loss or an enum
 * toward the older version (an unknown number is reported) takes both; an
 * enum toward the newer version, or a refusal, takes the path; a call of
 * another pair's function takes what that function takes, so the needs are
 * carried from callee to caller over the call graph until nothing changes.
 */
import type { DescEnum, DescField, DescFile, DescMessage, DescOneof } from "@bufbuild/protobuf";
import { ScalarType } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import type { Problems } from "../generation-error.js";
import type { CompatPlan, PlanPair } from "./compat-plan.js";
import { type CompatTransformName, type TransformSide, transformSide } from "./transforms.js";

export type Direction = "toOlder" | "toNewer";

/** Whether a function takes its path and the losses (which imply the path). */
export interface Needs {
  readonly at: boolean;
  readonly lost: boolean;
}

/** One enum pair's table, source number → target number: by value name, else by number. */
export interface EnumTable {
  readonly from: DescEnum;
  readonly to: DescEnum;
  readonly toNewer: boolean;
  readonly entries: readonly (readonly [number, number])[];
}

/** A step that carries one source field into one target field. */
export type FieldStep =
  | { readonly op: "copy"; readonly from: DescField; readonly to: DescField }
  | { readonly op: "enum"; readonly from: DescField; readonly to: DescField; readonly table: EnumTable }
  | { readonly op: "pair"; readonly from: DescField; readonly to: DescField; readonly pair: ConversionPair };

export type ConversionStep =
  | FieldStep
  | { readonly op: "lose"; readonly from: DescField; readonly reason: string }
  | { readonly op: "transform"; readonly transform: ConversionTransform };

export interface ConversionTransform {
  readonly name: CompatTransformName;
  /** The first source field the plan gives this transform for: where its problems are reported. */
  readonly field: string;
  readonly side: TransformSide;
  /** The pairs of `side.converts`, by short name; the tables of `side.enums`, by member name. */
  readonly converts: ReadonlyMap<string, ConversionPair>;
  readonly tables: ReadonlyMap<string, EnumTable>;
}

export interface ConversionFunction {
  readonly pair: ConversionPair;
  readonly dir: Direction;
  readonly src: DescMessage;
  readonly out: DescMessage;
  /** In the plan's order; a transform that several fields name comes once, where the first names it. */
  readonly steps: readonly ConversionStep[];
  readonly needs: Needs;
  /** The compat entry and direction, for messages. */
  readonly place: string;
}

export interface ConversionPair {
  readonly plan: PlanPair;
  readonly newer: DescMessage;
  readonly older: DescMessage;
}

export interface ConversionIr {
  readonly plan: CompatPlan;
  readonly pairs: readonly ConversionPair[];
  /** Each pair's function per direction. */
  readonly functions: ReadonlyMap<ConversionPair, Readonly<Record<Direction, ConversionFunction>>>;
  /** Every enum table the functions use, in the order they first use them. */
  readonly tables: readonly EnumTable[];
  /** Every message of the request, by type name. */
  readonly messages: ReadonlyMap<string, DescMessage>;
}

/** A function as it is built, before its needs are known. */
interface Draft extends Omit<ConversionFunction, "needs"> {
  readonly direct: { at: boolean; lost: boolean };
  readonly callees: readonly ConversionPair[];
}

/** What building the functions of one plan shares. */
interface Builder {
  readonly plan: CompatPlan;
  readonly messages: ReadonlyMap<string, DescMessage>;
  /** Each pair by either of its type names. */
  readonly byName: ReadonlyMap<string, ConversionPair>;
  readonly tables: Map<string, EnumTable>;
  readonly problems: Problems;
}

/** The IR of `plan` over the request's descriptors; every step that cannot be written is reported. */
export function buildConversionIr(plan: CompatPlan, files: readonly DescFile[], problems: Problems): ConversionIr {
  const messages = new Map<string, DescMessage>();
  for (const file of files) for (const t of nestedTypes(file)) if (t.kind === "message") messages.set(t.typeName, t);
  const pairs: ConversionPair[] = [];
  const byName = new Map<string, ConversionPair>();
  for (const p of plan.pairs) {
    const newer = messages.get(p.newer);
    const older = messages.get(p.older);
    if (!newer || !older) {
      problems.add(`${p.entry ?? `compat pairing of ${p.newer}`}: no descriptor of ${newer ? p.older : p.newer}`);
      continue;
    }
    const pair = { plan: p, newer, older };
    byName.set(p.newer, pair).set(p.older, pair);
    pairs.push(pair);
  }
  const b: Builder = { plan, messages, byName, tables: new Map(), problems };
  const drafts = new Map(pairs.map((p) => [p, { toOlder: draft(b, p, "toOlder"), toNewer: draft(b, p, "toNewer") }]));
  const needs = settleNeeds([...drafts.values()].flatMap((d) => [d.toOlder, d.toNewer]));
  const finish = (d: Draft): ConversionFunction => {
    const { direct: _, callees: __, ...fn } = d;
    return { ...fn, needs: needs.get(d)! };
  };
  const functions = new Map(
    [...drafts].map(([p, d]) => [p, { toOlder: finish(d.toOlder), toNewer: finish(d.toNewer) }] as const),
  );
  return { plan, pairs, functions, tables: [...b.tables.values()], messages };
}

/**
 * One direction of a pair: its field steps, then its transforms (so that enum tables are numbered as the writers
 * meet them), each checked against the descriptors, then put in the plan's order.
 */
function draft(b: Builder, pair: ConversionPair, dir: Direction): Draft {
  const toNewer = dir === "toNewer";
  const [src, out] = toNewer ? [pair.older, pair.newer] : [pair.newer, pair.older];
  const place = `${pair.plan.entry ?? `compat pairing of ${pair.newer.typeName}`} (${dir})`;
  const d: DraftState = { direct: { at: false, lost: false }, callees: [], placed: [], written: new Set() };
  const planSteps = toNewer ? pair.plan.toNewer : pair.plan.toOlder;
  for (const [i, s] of planSteps.entries()) {
    const problem = (what: string) => b.problems.add(`${place}: ${src.typeName}.${s.from}: ${what}`);
    const f = src.fields.find((x) => x.name === s.from);
    if (!f) problem("no such field");
    else if (s.op === "lossy") {
      d.direct.lost = true;
      d.placed.push([i, { op: "lose", from: f, reason: s.reason }]);
    } else if (s.op === "copy" || s.op === "message") {
      const t = out.fields.find((x) => x.name === s.to);
      const step = t ? fieldStep(b, f, t, toNewer, problem) : problem(`no target field ${out.typeName}.${s.to}`);
      if (step) place1(d, i, step, toNewer);
    }
  }
  const seen = new Set<CompatTransformName>();
  for (const [i, s] of planSteps.entries()) {
    if (s.op !== "transform" || seen.has(s.transform)) continue;
    seen.add(s.transform);
    const problem = (what: string) => b.problems.add(`${place}: ${src.typeName}.${s.from}: ${what}`);
    const t = transform(b, { src, out, toNewer, name: s.transform, field: s.from }, problem);
    for (const w of t.side.writes) d.written.add(w);
    d.direct.lost ||= t.side.loses === true || (t.tables.size > 0 && !toNewer);
    d.direct.at ||= d.direct.lost || t.side.refuses === true || t.tables.size > 0;
    d.callees.push(...t.converts.values());
    d.placed.push([i, { op: "transform", transform: t }]);
  }
  checkZeroValues(out, d.written, (what) => b.problems.add(`${place}: ${out.typeName}.${what}`));
  const steps = d.placed.sort(([i], [j]) => i - j).map(([, step]) => step);
  return { pair, dir, src, out, steps, place, direct: d.direct, callees: d.callees };
}

/** What a function's steps add up to while they are worked out. */
interface DraftState {
  readonly direct: { at: boolean; lost: boolean };
  readonly callees: ConversionPair[];
  /** Each step with the index of its plan step. */
  readonly placed: [number, ConversionStep][];
  /** The target members the steps write. */
  readonly written: Set<string>;
}

/** A copy, enum or pair step, with what it makes its function take. */
function place1(d: DraftState, index: number, step: FieldStep, toNewer: boolean): void {
  d.written.add(step.to.name);
  // An unknown enum number is refused toward the newer version, reported toward the older one.
  if (step.op === "enum") {
    d.direct.at = true;
    d.direct.lost ||= !toNewer;
  }
  if (step.op === "pair") d.callees.push(step.pair);
  d.placed.push([index, step]);
}

/** The step that carries source field `f` into target field `t`, by their kinds; undefined (reported) if none. */
function fieldStep(
  b: Builder,
  f: DescField,
  t: DescField,
  toNewer: boolean,
  problem: (what: string) => void,
): FieldStep | undefined {
  const kinds = (): undefined => {
    problem(`${f.parent.typeName}.${f.name} → ${t.parent.typeName}.${t.name}: no conversion between their kinds`);
  };
  const pairOf = (d: DescMessage) => {
    const p = b.byName.get(d.typeName);
    if (!p) problem(`${d.typeName} has no counterpart to convert it to`);
    return p && ({ op: "pair", from: f, to: t, pair: p } as const);
  };
  switch (f.fieldKind) {
    case "scalar":
      // An unset source with presence is written as the target's zero value, which 64-bit integers have none of.
      if (t.fieldKind === "scalar" && f.presence !== IMPLICIT && !f.oneof && implicit64(t)) {
        problem(`${t.parent.typeName}.${t.name}: 64-bit integers are not converted`);
        return undefined;
      }
      return { op: "copy", from: f, to: t };
    case "enum":
      return t.fieldKind === "enum" ? enumStep(b, f, t, f.enum, t.enum, toNewer) : kinds();
    case "message":
      if (t.fieldKind !== "message") return kinds();
      if (isWkt(f.message) || f.message.typeName === t.message.typeName) return { op: "copy", from: f, to: t };
      return pairOf(f.message);
    case "list":
      if (t.fieldKind !== "list") return kinds();
      if (f.listKind === "enum" && t.listKind === "enum") return enumStep(b, f, t, f.enum, t.enum, toNewer);
      if (f.listKind === "message" && !isWkt(f.message)) return pairOf(f.message);
      return { op: "copy", from: f, to: t };
    case "map":
      if (t.fieldKind !== "map" || f.mapKind === "enum") return kinds();
      if (f.mapKind === "message" && !isWkt(f.message)) return pairOf(f.message);
      return { op: "copy", from: f, to: t };
  }
}

function enumStep(b: Builder, f: DescField, t: DescField, from: DescEnum, to: DescEnum, toNewer: boolean) {
  return { op: "enum", from: f, to: t, table: enumTable(b, from, to, toNewer) } as const;
}

/** The table of an enum pair, shared by every function that converts it. */
function enumTable(b: Builder, from: DescEnum, to: DescEnum, toNewer: boolean): EnumTable {
  const key = `${from.typeName} ${to.typeName}`;
  const known = b.tables.get(key);
  if (known) return known;
  const entries: [number, number][] = [];
  for (const v of from.values) {
    const same = to.values.find((x) => x.localName === v.localName) ?? to.values.find((x) => x.number === v.number);
    if (same) entries.push([v.number, same.number]);
  }
  const table = { from, to, toNewer, entries };
  b.tables.set(key, table);
  return table;
}

/** A transform of one function, with what its definition names checked against the pair's descriptors. */
function transform(
  b: Builder,
  x: { src: DescMessage; out: DescMessage; toNewer: boolean; name: CompatTransformName; field: string },
  problem: (what: string) => void,
): ConversionTransform {
  const side = transformSide(x.name, x.toNewer ? "toNewer" : "toOlder");
  const [srcPackage, outPackage] = x.toNewer ? [b.plan.older, b.plan.newer] : [b.plan.newer, b.plan.older];
  const need = (d: DescMessage, name: string) => {
    const m = member(d, name);
    if (!m) problem(`the transform needs a field or oneof "${name}" in ${d.typeName}`);
    return m;
  };
  for (const name of side.reads) need(x.src, name);
  for (const name of side.writes) need(x.out, name);
  for (const [short, fields] of Object.entries(side.builds ?? {})) {
    const d = b.messages.get(`${outPackage}.${short}`);
    if (!d) problem(`the transform needs a message ${outPackage}.${short}`);
    else for (const name of fields) need(d, name);
  }
  const converts = new Map<string, ConversionPair>();
  for (const short of side.converts ?? []) {
    const p = b.byName.get(`${srcPackage}.${short}`);
    if (p) converts.set(short, p);
    else if (!b.messages.has(`${srcPackage}.${short}`)) problem(`the transform needs a message ${srcPackage}.${short}`);
    else problem(`${srcPackage}.${short} has no counterpart to convert it to`);
  }
  const tables = new Map<string, EnumTable>();
  for (const name of side.enums ?? []) {
    const f = need(x.src, name);
    const t = need(x.out, name);
    if (f?.kind !== "field" || f.fieldKind !== "enum" || t?.kind !== "field" || t.fieldKind !== "enum")
      problem(`the transform needs enum fields "${name}" on both sides`);
    else tables.set(name, enumTable(b, f.enum, t.enum, x.toNewer));
  }
  for (const [path, values] of Object.entries(side.enumValues ?? {})) {
    for (const v of values)
      if (enumNumberAt(x.src, path, v) === undefined)
        problem(`the transform needs the value ${v} of the enum of ${x.src.typeName}.${path}`);
  }
  for (const loss of side.planLosses ?? []) {
    const [message, field] = loss.split(".") as [string, string];
    if (planReason(b.plan, message, field) === undefined)
      problem(`the transform reports ${loss} as the plan does, but the plan has no lossy step for it`);
  }
  return { name: x.name, field: x.field, side, converts, tables };
}

/** Target members no step writes take their zero value, which 64-bit integers have none of here. */
function checkZeroValues(out: DescMessage, written: ReadonlySet<string>, problem: (what: string) => void): void {
  for (const f of out.fields) {
    if (written.has(f.name) || (f.oneof && written.has(f.oneof.name))) continue;
    if (implicit64(f) && !f.oneof) problem(`${f.name}: 64-bit integers are not converted`);
  }
}

/** protobuf-es FeatureSet_FieldPresence.IMPLICIT: the field is set when it is not its zero value. */
export const IMPLICIT = 2;

/** A 64-bit integer field without presence: its zero value is a BigInt, which the conversions do not write. */
const implicit64 = (f: DescField) =>
  f.fieldKind === "scalar" &&
  f.presence === IMPLICIT &&
  [ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64].includes(f.scalar);

const isWkt = (d: DescMessage) => d.typeName.startsWith("google.protobuf.");

/** A field or oneof of `d` by proto name. */
export const member = (d: DescMessage, name: string): DescField | DescOneof | undefined =>
  d.fields.find((f) => f.name === name) ?? d.oneofs.find((o) => o.name === name);

/** The number of an enum value (by name, without the prefix) of the enum field at a dotted path from `d`. */
export function enumNumberAt(d: DescMessage, path: string, valueName: string): number | undefined {
  let at: DescMessage | undefined = d;
  let f: DescField | undefined;
  for (const n of path.split(".")) {
    f = at?.fields.find((y) => y.name === n);
    at = f?.fieldKind === "message" ? f.message : undefined;
  }
  return f?.fieldKind === "enum" ? f.enum.values.find((e) => e.localName === valueName)?.number : undefined;
}

/** The reason of the plan's lossy step for a field of a newer message (short name), toward the older version. */
export function planReason(plan: CompatPlan, newerShort: string, field: string): string | undefined {
  const p = plan.pairs.find((q) => q.newer === `${plan.newer}.${newerShort}`);
  const step = p?.toOlder.find((s) => s.from === field);
  return step?.op === "lossy" ? step.reason : undefined;
}

/**
 * Each function's needs: its own, and those of every function it calls, carried from callee to caller
 * (a worklist over the reversed call graph; needs only grow, so it ends).
 */
function settleNeeds(drafts: readonly Draft[]): Map<Draft, Needs> {
  const byPair = new Map<string, Draft>();
  for (const d of drafts) byPair.set(`${d.pair.newer.typeName} ${d.dir}`, d);
  const callers = new Map<Draft, Draft[]>();
  for (const d of drafts) {
    for (const p of d.callees) {
      const callee = byPair.get(`${p.newer.typeName} ${d.dir}`)!;
      callers.set(callee, [...(callers.get(callee) ?? []), d]);
    }
  }
  const needs = new Map(drafts.map((d) => [d, { at: d.direct.at || d.direct.lost, lost: d.direct.lost }]));
  const work = [...drafts];
  for (let d = work.pop(); d; d = work.pop()) {
    const n = needs.get(d)!;
    for (const caller of callers.get(d) ?? []) {
      const c = needs.get(caller)!;
      const next = { at: c.at || n.at, lost: c.lost || n.lost };
      if (next.at === c.at && next.lost === c.lost) continue;
      needs.set(caller, next);
      work.push(caller);
    }
  }
  return needs;
}
