/**
 * Writes, into the cross-version module (compat-module.ts), conversions
 * between the older version's JSON-RPC dialect (a2a.json) and the newer
 * version's messages in one pass, without building the older proto's
 * messages in between. They come from the inputs of the plan (both
 * descriptors, the compat overrides, the dialect table) and give what the
 * plan's path gives (dialect codec → fromJson → converter, and back), which
 * test/compat-json.test.ts checks; the version bridge serves v0.3 JSON-RPC
 * with them (the `a2aCompatJson` table).
 *
 * Every pair is written, in both directions: field by field from the plan's
 * steps (copies of the value kinds compat-json-fields.ts handles, messages,
 * losses, moves, the transforms compat-json-transforms.ts writes), or whole
 * where a dialect rule spells the message whole (part, union, typed union, list
 * map, array result; resource names through their transforms). A pair it
 * cannot write (a wrapper or null result, a step without code) fails the
 * generation, every such pair named: nothing is converted through the older
 * proto at run time.
 *
 * Loss paths name dialect keys toward the newer version and newer field
 * names toward the older one, as each side spells them.
 */
import { ScalarType, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import type { GeneratedFile } from "@bufbuild/protoplugin";
import type { CompatPlan, PlanPair, PlanStep } from "../compat/compat-plan.js";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime";
import { dialectDefault } from "../compat/dialect-defaults.js";
import {
  copyable,
  field,
  messageOf,
  EnumTables,
  IMPLICIT,
  lit,
  prop,
  readValue,
  setTest,
  valueKind,
  writeValue,
  zeroLiteral,
} from "./compat-json-fields.js";
import { partCode, transformCode, type DecodeCtx, type EncodeCtx, type Resource } from "./compat-json-transforms.js";
import { runtimeModule } from "./routes-module.js";
import {
  unionToNewer,
  unionToOlder,
  wholeRule as wholeOf,
  wholeToNewer,
  wholeToOlder,
  type WholeCtx,
} from "./compat-json-dialect.js";
import { printCompatJsonApi, type CompatJsonApi } from "./compat-json-api.js";

/** The helpers the generated conversions call (packages/runtime/src/compat/compat-json.ts). */
const compatJsonModule = `${runtimeModule}/compat-json`;

type Dir = "toNewer" | "toOlder";

/** What the steps of one conversion write: statements, transforms for after them, oneofs and transforms seen. */
interface EncodeOut {
  readonly body: string[];
  readonly done: Set<string>;
  /** The older fields a2a.json always has. */
  readonly always: ReadonlySet<string>;
  /** Those copied in the object literal (older field → expression). */
  readonly inLiteral: ReadonlyMap<string, string>;
}

interface StepOut {
  readonly body: string[];
  readonly later: string[];
  readonly oneofs: Set<string>;
  readonly done: Set<string>;
}

interface Pair {
  readonly plan: PlanPair;
  readonly d10: DescMessage;
  readonly d03: DescMessage;
  /** The newer message's name, nested names joined by "_": names the functions. */
  readonly id: string;
}

/** An object key as written in a literal: bare when an identifier. */
const propKey = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : lit(k));
/** A JSON value as a JavaScript literal, keys bare where they can be. */
const jsLiteral = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(jsLiteral).join(", ")}]`
    : typeof v === "object" && v !== null
      ? Object.keys(v).length === 0
        ? "{}"
        : `{ ${Object.entries(v)
            .map(([k, x]) => `${propKey(k)}: ${jsLiteral(x)}`)
            .join(", ")} }`
      : lit(v);

/** The body without its `let v` when no other line uses v. */
const withoutUnusedV = (body: string[]) =>
  body.some((l) => !l.startsWith("let v") && /\bv\b/.test(l)) ? body : body.filter((l) => !l.startsWith("let v"));

/** Placeholders in code text for symbols that the generated file imports. */
const SYM = "\u0000";

export interface CompatJsonInputs {
  readonly newer: DescFile;
  readonly older: DescFile;
  /** Module of the older version's definition (its dialect table). */
  readonly olderA2a: string;
  /** The exported name of the older definition in olderA2a. */
  readonly olderDefinition: string;
  readonly dialect: JsonRpcDialect;
  /** Name of the plan converter defined earlier in the same file. */
  readonly converter: string;
}

/** Prints the direct conversions into `f`; returns the name of the exported table. */
export function emitCompatJson(
  f: GeneratedFile,
  target: "ts" | "js" | "dts",
  plan: CompatPlan,
  files: CompatJsonInputs,
): string {
  const dialect = files.dialect;
  const messages = new Map<string, DescMessage>();
  for (const file of [files.newer, files.older])
    for (const t of nestedTypes(file)) if (t.kind === "message") messages.set(t.typeName, t);
  const pairs = new Map<string, Pair>();
  for (const p of plan.pairs) {
    const d10 = messages.get(p.newer);
    const d03 = messages.get(p.older);
    if (!d10 || !d03) continue;
    const pair: Pair = { plan: p, d10, d03, id: p.newer.slice(plan.newer.length + 1).replace(/\./g, "_") };
    pairs.set(p.newer, pair);
    pairs.set(p.older, pair);
  }
  const typed = target === "ts";
  const ty = (s: string) => (typed ? s : "");
  const rt = (name: string) => `${SYM}rt:${name}${SYM}`;
  const shape = (d: DescMessage) => `${SYM}shape:${d.typeName}${SYM}`;
  const enums = new EnumTables(dialect);
  const key03 = (name: string, d: DescMessage) => dialect.renames[`${d.typeName}.${name}`] ?? field(d, name).jsonName;

  // ---- which pairs convert directly ----
  const isUnion = (d03: DescMessage) => dialect.unions.includes(d03.typeName);
  const wholeRule = (d03: DescMessage) => wholeOf(dialect, d03);
  /** A copy of a proto map: of strings, or of messages that are a pair. */
  const mapCopy = (from: DescField, to: DescField): "strings" | "messages" | undefined => {
    if (from.fieldKind !== "map" || to.fieldKind !== "map" || from.mapKey !== to.mapKey) return undefined;
    if (from.mapKind === "scalar" && to.mapKind === "scalar" && from.scalar === ScalarType.STRING)
      return to.scalar === ScalarType.STRING ? "strings" : undefined;
    return from.mapKind === "message" && to.mapKind === "message" && pairs.has(from.message.typeName)
      ? "messages"
      : undefined;
  };
  const resource = (d03: DescMessage, name03: string): Resource => {
    const r = dialect.resourceNames.find((x) => x.message === d03.typeName && x.field === name03);
    if (!r) throw new Error(`compat-json: ${d03.typeName}.${name03} has no resource name pattern in the dialect`);
    const parts = r.pattern.split(/\{([^}]+)\}/);
    return {
      keys: parts.filter((_, i) => i % 2 === 1),
      prefixes: parts.filter((_, i) => i % 2 === 0).slice(0, -1),
    };
  };
  const stepOk = (p: Pair, dir: Dir, s: PlanStep): boolean => {
    const [src, out] = dir === "toNewer" ? [p.d03, p.d10] : [p.d10, p.d03];
    if (s.op === "transform")
      return p.d03.typeName === dialect.part.message
        ? s.transform === "part"
        : transformCode[s.transform]?.[dir] !== undefined;
    const f = field(src, s.from);
    if (s.op === "copy") return copyable(f, field(out, s.to)) || mapCopy(f, field(out, s.to)) !== undefined;
    if (s.op === "message") {
      const sub = messageOf(f);
      return (
        sub !== undefined &&
        pairs.has(sub.typeName) &&
        f.fieldKind !== "map" &&
        (!isUnion(p.d03) || (f.oneof !== undefined && f.fieldKind === "message"))
      );
    }
    if (isUnion(p.d03)) return false; // a union holds its members only
    return s.op === "moved" || (f.fieldKind !== "map" && (messageOf(f) !== undefined || valueKind(f) !== undefined));
  };
  /** Why the pair cannot be written in this direction; undefined when it can. */
  const problem = (p: Pair, dir: Dir): string | undefined => {
    const rule = wholeRule(p.d03);
    if (rule === "null result" || rule === "wrapper") return `the dialect's ${rule} rule has no direct conversion`;
    if (rule !== undefined) return undefined; // written whole (wholeToNewer, wholeToOlder)
    const bad = (dir === "toNewer" ? p.plan.toNewer : p.plan.toOlder).find((s) => !stepOk(p, dir, s));
    return bad && `${dir} step ${bad.from} (${bad.op}${bad.op === "transform" ? ` ${bad.transform}` : ""})`;
  };
  for (const p of new Set(pairs.values())) {
    const keys = Object.entries(p.plan.dialectFields);
    if (keys.length === 0) continue;
    const where = p.plan.entry ?? p.d10.typeName;
    for (const [name10, key] of keys) {
      const t = field(p.d10, name10);
      const special = p.d03.typeName === dialect.part.message;
      if (!special && key.includes("."))
        throw new Error(
          `${where}: dialectFields ${name10}: "${key}" is nested; only the Part conversion reads nested keys`,
        );
      if (
        !special &&
        !(valueKind(t) && (t.fieldKind !== "list" || valueKind(t) === "string") && valueKind(t) !== "enum")
      )
        throw new Error(`${where}: dialectFields ${name10}: its type has no direct conversion`);
    }
  }
  const problems = [...new Set(pairs.values())].flatMap((p) =>
    (["toNewer", "toOlder"] as const).flatMap((dir) => {
      const why = problem(p, dir);
      return why ? [`${p.plan.entry ?? p.d10.typeName} (${p.d03.typeName} ↔ ${p.d10.typeName}): ${why}`] : [];
    }),
  );
  if (problems.length > 0)
    throw new Error(`compat-json: no conversion can be written for:\n  ${problems.join("\n  ")}`);
  const pairOf = (typeName: string): Pair => {
    const p = pairs.get(typeName);
    if (!p) throw new Error(`compat-json: ${typeName} has no counterpart`);
    return p;
  };

  // ---- toward the newer version: older dialect JSON → newer message ----
  const decName = (p: Pair) => `${p.id}FromOlder`;
  const decCall = (sub: DescMessage, v: string, atExpr: string, lost = "lost") =>
    `${decName(pairOf(sub.typeName))}(${v}, ${atExpr}, ${lost})`;
  /** The function (json, at, lost) → newer message, for list elements. */
  const decFn = (sub: DescMessage) => decName(pairOf(sub.typeName));
  const read = (d03: DescMessage, name: string, obj: string) => {
    const f = field(d03, name);
    const k = key03(name, d03);
    return k === f.jsonName ? prop(obj, k) : `(${prop(obj, k)} ?? ${prop(obj, f.jsonName)})`;
  };
  const readAs = (d03: DescMessage, name: string, v: string, d10Field?: DescField, where = "a") => {
    const f = field(d03, name);
    const what = lit(`${d03.typeName}.${name}`);
    const enumTable = (e: Parameters<EnumTables["toNewer"]>[0]) => {
      const t =
        d10Field && (d10Field.fieldKind === "enum" || (d10Field.fieldKind === "list" && d10Field.listKind === "enum"))
          ? d10Field.enum
          : e;
      return enums.toNewer(e, t);
    };
    if (f.fieldKind === "list") {
      // Elements are named by their index under the field's key.
      if (valueKind(f) === "string") return `${rt("strings")}(${v}, ${where}, ${lit(key03(name, d03))}, ${what})`;
      throw new Error(`compat-json: no reader for ${f.toString()}`);
    }
    // An enum value is refused at its own key (its path made only then); other values at their object.
    const at = valueKind(f) === "enum" ? `${where}, ${lit(key03(name, d03))}` : where;
    return readValue(f, v, at, what, rt, enumTable);
  };
  const assign = (d10: DescMessage, name10: string, expr: string, target = "m") => {
    const t = field(d10, name10);
    return t.oneof
      ? `${target}.${t.oneof.localName} = { case: ${lit(t.localName)}, value: ${expr} };`
      : `${target}.${t.localName} = ${expr};`;
  };
  const unknownKeys = (d03: DescMessage, obj: string, atExpr: string, extra: readonly string[] = []) => {
    const known = new Set<string>(["kind", ...extra]);
    for (const f of d03.fields) {
      // A resource name is spelled as the ids its pattern names (tasks/{id} ↔ id), not under its own key.
      const r = dialect.resourceNames.some((x) => x.message === d03.typeName && x.field === f.name);
      if (r) for (const k of resource(d03, f.name).keys) known.add(k.split(".")[0]!);
      else known.add(key03(f.name, d03)).add(f.jsonName);
    }
    return (
      `for (const k in ${obj}) switch (k) { ${[...known].map((k) => `case ${lit(k)}:`).join(" ")} break; ` +
      `default: ${rt("lose")}(lost, ${atExpr}, k, ${lit(`${d03.typeName} has no field for it`)}); }`
    );
  };
  const zero = (d: DescMessage) => (typed ? `(${zeroLiteral(d)} as ${shape(d)})` : zeroLiteral(d));
  const olderMessage = (short: string) => {
    const d = messages.get(`${plan.older}.${short}`);
    if (!d) throw new Error(`compat-json: no message ${plan.older}.${short}`);
    return d;
  };

  function decodeCtx(p: Pair): DecodeCtx {
    const { d03, d10 } = p;
    return {
      d03,
      d10,
      typed,
      json: ty(`: ${rt("JsonObject")}`),
      read: (name, obj = "x", desc = d03) => read(desc, name, obj),
      value: (name, v, desc = d03, where = "a") =>
        readAs(desc, name, v, desc === d03 ? d10.fields.find((x) => x.name === name) : undefined, where),
      set: (name10, expr) => assign(d10, name10, expr),
      toNewer: (name, v, desc = d03, parentAt = "a") =>
        decCall(messageOf(field(desc, name))!, v, `${rt("at")}(${parentAt}, ${lit(key03(name, desc))})`),
      lose: (key, reason) => `${rt("lose")}(lost, a, ${lit(key)}, ${reason});`,
      unknownKeys,
      zero: (short) => zero(messages.get(`${plan.newer}.${short}`)!),
      key03: (name, desc = d03) => key03(name, desc),
      rt,
      older: olderMessage,
      dialectField: (name10) => p.plan.dialectFields[name10],
      fnToNewer: (name, desc = d03) => decFn(messageOf(field(desc, name))!),
      resource: (name) => resource(d03, name),
    };
  }

  /** One step of the plan toward the newer version, as statements (transforms kept for after the fields). */
  function decodeStep(p: Pair, s: PlanStep, c: DecodeCtx, out: StepOut): void {
    const { d03, d10 } = p;
    const f = field(d03, s.from);
    const k = key03(f.name, d03);
    const r = read(d03, f.name, "x");
    if (s.op === "transform") {
      // Transforms run after the field steps, which they may complete (the card's capabilities).
      if (!out.done.has(s.transform)) out.later.push(...transformCode[s.transform]!.toNewer!(c));
      out.done.add(s.transform);
      return;
    }
    if (s.op === "moved") return;
    const guardOneof = (stmt: string) => {
      if (!f.oneof) return stmt;
      const flag = `one_${f.oneof.name}`;
      if (!out.oneofs.has(f.oneof.name)) {
        out.oneofs.add(f.oneof.name);
        out.body.push(`let ${flag} = false;`);
      }
      return (
        `{ if (${flag}) ${rt("lose")}(lost, a, ${lit(k)}, ` +
        `${lit(`${d03.typeName}.${f.oneof.name} holds one member; ${k} was not kept`)}); ` +
        `else { ${flag} = true; ${stmt} } }`
      );
    };
    const maps = s.op === "copy" ? mapCopy(f, field(d10, s.to)) : undefined;
    if (maps) {
      const what = lit(`${d03.typeName}.${f.name}`);
      const value =
        maps === "strings"
          ? `${rt("stringMap")}(v, ${rt("at")}(a, ${lit(k)}), ${what})`
          : `${rt("eachKey")}(v, ${rt("at")}(a, ${lit(k)}), ${what}, lost, ${decFn(messageOf(f)!)})`;
      out.body.push(`if ((v = ${r}) != null) ${assign(d10, (s as { to: string }).to, value)}`);
    } else if (s.op === "copy") {
      const t = field(d10, s.to);
      // Assigning a zero value matters only where the newer field tracks presence.
      const test = t.oneof || t.presence !== IMPLICIT ? setTest(f, "w") : undefined;
      const value = readAs(d03, f.name, "v", t);
      const stmt =
        test && test !== "w !== undefined"
          ? `{ const w = ${value}; if (${test}) ${assign(d10, s.to, "w")} }`
          : assign(d10, s.to, value);
      out.body.push(`if ((v = ${r}) != null) ${guardOneof(stmt)}`);
    } else if (s.op === "message") {
      const sub = messageOf(f)!;
      const atExpr = `${rt("at")}(a, ${lit(k)})`;
      const value =
        f.fieldKind === "list"
          ? `${rt("each")}(v, ${atExpr}, ${lit(`${d03.typeName}.${f.name}`)}, lost, ${decFn(sub)})`
          : decCall(sub, "v", atExpr);
      out.body.push(`if ((v = ${r}) != null) ${guardOneof(assign(d10, s.to, value))}`);
    } else if (s.op === "lossy") {
      // reported when the older proto would hold a set value
      const test = messageOf(f)
        ? f.fieldKind === "list"
          ? `${rt("array")}(v, a, ${lit(f.name)}).length > 0`
          : undefined
        : setTest(f, readAs(d03, f.name, "v"));
      out.body.push(
        `if ((v = ${r}) != null${test ? ` && ${test}` : ""}) ${rt("lose")}(lost, a, ${lit(k)}, ${lit(s.reason)});`,
      );
    }
  }

  function decodeFn(p: Pair): string[] {
    const { d03, d10 } = p;
    const c = decodeCtx(p);
    const head =
      `function ${decName(p)}(j${ty(": unknown")}, a${ty(`: ${rt("At")}`)}, ` +
      `lost${ty(`: ${rt("Loss")}[]`)})${ty(`: ${shape(d10)}`)} {`;
    if (d03.typeName === dialect.part.message) return [head, ...partCode.toNewer(c).map((l) => "  " + l), "}"];
    if (isUnion(d03)) return [head, ...unionToNewer(wholeCtx, p).map((l) => "  " + l), "}"];
    const whole = wholeToNewer(wholeCtx, p);
    if (whole) return [head, ...whole.map((l) => "  " + l), "}"];
    const kind = dialect.kinds[d03.typeName];
    const body: string[] = [
      `const x = ${rt("object")}(j, a, ${lit(d03.typeName)});`,
      ...(kind === undefined
        ? []
        : [
            `if (x.kind !== undefined && x.kind !== ${lit(kind)}) ` +
              `${rt("refuseKind")}(${rt("pathOf")}(a), ${lit(d03.typeName)}, x.kind, ${lit(kind)});`,
          ]),
      `const m = ${zero(d10)};`,
      `let v${ty(": unknown")};`,
    ];
    const out: StepOut = { body, later: [], oneofs: new Set(), done: new Set() };
    for (const s of p.plan.toNewer) decodeStep(p, s, c, out);
    // What a2a.json holds and the older proto does not (dialectFields), read into the newer fields.
    const extra = Object.entries(p.plan.dialectFields);
    for (const [name10, key] of extra) {
      const t = field(d10, name10);
      const value =
        t.fieldKind === "list" && valueKind(t) === "string"
          ? `${rt("strings")}(v, a, ${lit(key)}, ${lit(`${d03.typeName} ${key}`)})`
          : readValue(t, "v", "a", lit(`${d03.typeName} ${key}`), rt, () => undefined);
      body.push(`if ((v = ${prop("x", key)}) != null) ${assign(d10, name10, value)}`);
    }
    body.push(
      ...out.later,
      unknownKeys(
        d03,
        "x",
        "a",
        extra.map(([, key]) => key),
      ),
      "return m;",
    );
    return [head, ...withoutUnusedV(body).map((l) => "  " + l), "}"];
  }

  // ---- toward the older version: newer message → older dialect JSON ----
  const encName = (p: Pair) => `${p.id}ToOlder`;
  const encCall = (sub: DescMessage, v: string, atExpr: string, lost = "lost") =>
    `${encName(pairOf(sub.typeName))}(${v}, ${atExpr}, ${lost})`;
  /** The list writer: eachOf leaves out an element without a form (a part without content), eachTo has none. */
  const eachOf = (sub: DescMessage) =>
    rt(pairOf(sub.typeName).d03.typeName === dialect.part.message ? "eachOf" : "eachTo");
  /** The function (message, at, lost) → older dialect JSON, for list elements. */
  const encFn = (sub: DescMessage) => encName(pairOf(sub.typeName));
  const get = (d10: DescMessage, name: string, obj = "m") => {
    const f = field(d10, name);
    return f.oneof
      ? `(${obj}.${f.oneof.localName}.case === ${lit(f.localName)} ? ${obj}.${f.oneof.localName}.value : undefined)`
      : `${obj}.${f.localName}`;
  };
  /** Statement writing `expr` (a value for the older field) under its dialect key, when toJson would write it. */
  const put = (
    d03: DescMessage,
    name03: string,
    expr: string,
    target: string,
    source?: DescField,
    sourceTested = false,
    always = false,
  ) => {
    const t = field(d03, name03);
    const table =
      valueKind(t) === "enum" && t.fieldKind === "enum"
        ? enums.toOlder(source && source.fieldKind === "enum" ? source.enum : t.enum, t.enum)
        : undefined;
    // A plain path is used in place; anything else is evaluated once.
    const w = /^[\w.]+$/.test(expr) ? expr : "w";
    // Skip the test when the caller's own test (the source being set) already implies it.
    const test = setTest(t, w);
    const implied = always || (sourceTested && source !== undefined && test === setTest(source, w));
    const write =
      `${test && !implied ? `if (${test}) ` : ""}` +
      `${prop(target, key03(name03, d03))} = ${writeValue(t, w, rt, table, source?.name ?? name03)};`;
    return w === "w" ? `{ const w = ${expr}; ${write} }` : write;
  };

  function encodeCtx(p: Pair): EncodeCtx {
    const { d03, d10 } = p;
    return {
      d03,
      d10,
      typed,
      json: ty(`: ${rt("JsonObject")}`),
      get: (name) => get(d10, name),
      put: (name, expr, target = "o", desc = d03) =>
        put(
          desc,
          name,
          expr,
          target,
          desc === d03 && d10.fields.some((f) => f.name === name) ? field(d10, name) : undefined,
        ),
      toOlder: (name, expr, desc = d10) => encCall(messageOf(field(desc, name))!, expr, `${rt("at")}(a, ${lit(name)})`),
      lose: (name, reason) => `${rt("lose")}(lost, a, ${lit(name)}, ${reason});`,
      key: (name, desc = d03) => key03(name, desc),
      rt,
      older: olderMessage,
      enumNumber: (path, valueName) => {
        let d = d10;
        const names = path.split(".");
        let f = field(d, names[0]!);
        for (const n of names.slice(1)) {
          d = messageOf(f)!;
          f = field(d, n);
        }
        if (f.fieldKind !== "enum") throw new Error(`compat-json: ${path} is not an enum`);
        const v = f.enum.values.find((x) => x.localName === valueName);
        if (!v) throw new Error(`compat-json: ${f.enum.typeName} has no ${valueName}`);
        return v.number;
      },
      dialectField: (name10) => p.plan.dialectFields[name10],
      resource: (name) => resource(d03, name),
    };
  }

  /** The object literal an older message starts as: its kind and the keys a2a.json always has. */
  function olderLiteral(p: Pair, inLiteral: Map<string, string>): string {
    const { d03, d10 } = p;
    const kind = dialect.kinds[d03.typeName];
    // The keys a2a.json always has start at their defaults, in the older message's order, as the codec writes them.
    // A plain string, bool or number the older side always has is copied in the literal itself.
    for (const s of p.plan.toOlder) {
      const f = field(d10, s.from);
      const plain = f.presence === IMPLICIT && !f.oneof && f.fieldKind === "scalar";
      if (s.op === "copy" && plain && (dialect.alwaysEmit[d03.typeName] ?? []).includes(s.to) && valueKind(f))
        inLiteral.set(s.to, `m.${f.localName}`);
    }
    const defaults = d03.fields
      .filter((x) => dialect.alwaysEmit[d03.typeName]?.includes(x.name))
      .map((x) => `${propKey(key03(x.name, d03))}: ${inLiteral.get(x.name) ?? jsLiteral(alwaysDefault(d03, x.name))}`);
    const members = [...(kind ? [`kind: ${lit(kind)}`] : []), ...defaults];
    return members.length > 0 ? `{ ${members.join(", ")} }` : "{}";
  }

  /** One step of the plan toward the older version, as statements. */
  function encodeStep(p: Pair, s: PlanStep, c: EncodeCtx, out: EncodeOut): void {
    const { d03, d10 } = p;
    const f = field(d10, s.from);
    if (s.op === "transform") {
      if (out.done.has(s.transform)) return;
      out.done.add(s.transform);
      out.body.push(...transformCode[s.transform]!.toOlder!(c));
      return;
    }
    if (s.op === "moved") return;
    // A oneof member is tested by its case, which narrows the value's type.
    const value = f.oneof ? `m.${f.oneof.localName}.value` : `m.${f.localName}`;
    const test = setTest(f, value)!;
    const cond = f.oneof ? `m.${f.oneof.localName}.case === ${lit(f.localName)}` : test;
    const maps = s.op === "copy" ? mapCopy(f, field(d03, s.to)) : undefined;
    // A field a2a.json always has is written as it is: at its zero value, that is its default there.
    const plain = f.presence === IMPLICIT && !f.oneof && (f.fieldKind === "scalar" || f.fieldKind === "enum");
    const alwaysTo = s.op === "copy" || s.op === "message" ? out.always.has(s.to) : false;
    if (s.op === "copy" && out.inLiteral.has(s.to)) return;
    if (alwaysTo && s.op === "copy" && plain && !maps) {
      out.body.push(put(d03, s.to, value, "o", f, true, true));
    } else if (alwaysTo && s.op === "message" && f.fieldKind === "list") {
      const sub = messageOf(f)!;
      const converted = `${eachOf(sub)}(${value}, ${rt("at")}(a, ${lit(f.name)}), lost, ${encFn(sub)})`;
      out.body.push(`${prop("o", key03(s.to, d03))} = ${converted};`);
    } else if (maps) {
      const converted =
        maps === "strings"
          ? `${rt("stringMapJson")}(${value})`
          : `${rt("eachKeyOf")}(${value}, ${rt("at")}(a, ${lit(f.name)}), lost, ${encFn(messageOf(f)!)})`;
      out.body.push(`if (${cond}) ${prop("o", key03((s as { to: string }).to, d03))} = ${converted};`);
    } else if (s.op === "copy") out.body.push(`if (${cond}) ${put(d03, s.to, value, "o", f, true)}`);
    else if (s.op === "message") {
      const sub = messageOf(f)!;
      const atExpr = `${rt("at")}(a, ${lit(f.name)})`;
      const converted =
        f.fieldKind === "list"
          ? `${eachOf(sub)}(${value}, ${atExpr}, lost, ${encFn(sub)})`
          : encCall(sub, value, atExpr);
      out.body.push(`if (${cond}) ${prop("o", key03(s.to, d03))} = ${converted};`);
    } else if (s.op === "lossy" && p.plan.dialectFields[f.name] !== undefined) {
      out.body.push(
        `if (${cond}) ${prop("o", p.plan.dialectFields[f.name]!)} = ${writeValue(f, value, rt, undefined)};`,
      );
    } else if (s.op === "lossy")
      out.body.push(`if (${cond}) ${rt("lose")}(lost, a, ${lit(f.name)}, ${lit(s.reason)});`);
  }

  function encodeFn(p: Pair): string[] {
    const { d03, d10 } = p;
    const c = encodeCtx(p);
    const isPart = d03.typeName === dialect.part.message;
    const array = dialect.arrayResults[d03.typeName] !== undefined;
    // An array result is a list; a part may have no form (undefined).
    const result = array ? `${rt("JsonValue")}[]` : `${rt("JsonObject")}${isPart ? " | undefined" : ""}`;
    const head =
      `function ${encName(p)}(m${ty(`: ${shape(d10)}`)}, a${ty(`: ${rt("At")}`)}, ` +
      `lost${ty(`: ${rt("Loss")}[]`)})${ty(`: ${result}`)} {`;
    if (isPart) return [head, ...partCode.toOlder(c).map((l) => "  " + l), "}"];
    if (isUnion(d03)) return [head, ...unionToOlder(wholeCtx, p).map((l) => "  " + l), "}"];
    const whole = wholeToOlder(wholeCtx, p);
    if (whole) return [head, ...whole.map((l) => "  " + l), "}"];
    const inLiteral = new Map<string, string>();
    const literal = olderLiteral(p, inLiteral);
    const body: string[] = [`const o${ty(`: ${rt("JsonObject")}`)} = ${literal};`, `let v${ty(": unknown")};`];
    const out: EncodeOut = {
      body,
      done: new Set(),
      always: new Set(dialect.alwaysEmit[d03.typeName] ?? []),
      inLiteral,
    };
    for (const s of p.plan.toOlder) encodeStep(p, s, c, out);
    body.push("return o;");
    return [head, ...withoutUnusedV(body).map((l) => "  " + l), "}"];
  }

  /** What the dialect codec writes for an always-emitted field at its default. */
  function alwaysDefault(d03: DescMessage, name: string): unknown {
    return dialectDefault(d03, name, dialect);
  }

  const wholeCtx: WholeCtx = {
    dialect,
    ty,
    rt,
    zero,
    assign: (d10, name10, expr) => assign(d10, name10, expr),
    decCall: (sub, v, atExpr) => decCall(sub, v, atExpr),
    decFn,
    encCall: (sub, v, atExpr) => encCall(sub, v, atExpr),
    encFn,
    eachOf,
  };

  // ---- the file ----
  const ordered = [...new Set(pairs.values())];
  const tableName = "a2aCompatJson";
  const api: CompatJsonApi = {
    older: plan.older,
    newer: plan.newer,
    entries: ordered.map((p) => ({
      older: p.d03.typeName,
      newer: p.d10,
      fromOlder: decName(p),
      toOlder: encName(p),
      // A part without content has no a2a.json form: its function gives undefined, written {} outside a list.
      mayLeaveOut: p.d03.typeName === dialect.part.message,
    })),
    table: tableName,
    converter: files.converter,
    compatJsonModule,
  };
  if (target === "dts") {
    printCompatJsonApi(f, target, api);
    return tableName;
  }
  /** Prints code text, turning its placeholders into imports. */
  const print = (text: string) => {
    const parts = text.split(SYM);
    f.print(
      ...parts.map((s, i) => {
        if (i % 2 === 0) return s;
        const kind = s.slice(0, s.indexOf(":"));
        const name = s.slice(s.indexOf(":") + 1);
        if (kind === "shape") return f.importShape(messages.get(name)!);
        if (kind === "older") return f.import(name, files.olderA2a);
        if (name === "JsonObject" || name === "JsonValue") return f.import(name, "@bufbuild/protobuf", true);
        if (name === "Loss" || name === "dialectCodec") return f.import(name, runtimeModule, name === "Loss");
        return f.import(name, compatJsonModule, name === "At");
      }),
    );
  };
  f.print();
  f.print(`// ---- ${plan.older} JSON-RPC (a2a.json) ↔ ${plan.newer} messages, in one pass ----`);
  f.print();
  const fns: string[] = [];
  for (const p of ordered) {
    fns.push(decodeFn(p).join("\n"), encodeFn(p).join("\n"));
  }
  f.print();
  for (const d of enums.decls) f.print(typed ? d : d.replace(/new Map<[^>]*>/, "new Map"));
  for (const fn of fns) {
    f.print();
    print(fn);
  }
  printCompatJsonApi(f, target, api);
  return tableName;
}
