/**
 * Writes the direct conversions toward the older version (compat-json-module.ts):
 * for each pair, a function (newer message, its path, the losses) → older
 * dialect JSON. A Part, a union or a message the dialect writes whole gets
 * its body from compat-json-transforms.ts / compat-json-dialect.ts; any other
 * starts as the object literal of its kind and the keys a2a.json always has,
 * then is written key by key from its steps toward the older version
 * (src/compat/json-ir.ts).
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { JsonStep } from "../../compat/json-ir.js";
import { enumNumberAt } from "../../compat/conversion-ir.js";
import { dialectDefault } from "../../compat/dialect-defaults.js";
import { unionToOlder, wholeToOlder } from "./compat-json-dialect.js";
import {
  atKey,
  eachOf,
  encCall,
  encFn,
  encName,
  fieldRule,
  printedFunction,
  ruleOf,
  get,
  key03,
  olderMessage,
  planReason,
  put,
  resource,
  rt,
  ty,
  type JsonEnv,
  type Pair,
} from "./compat-json-env.js";
import { code, field, IMPLICIT, lit, messageOf, prop, setTest, writeValue, type Code } from "./compat-json-fields.js";
import { guarded, indented, widthOf } from "../print/code-layout.js";
import { partCode, transformCode, type EncodeCtx } from "./compat-json-transforms.js";

/** What the steps of one conversion write: statements, transforms seen, the keys a2a.json always has. */
interface EncodeOut {
  readonly body: Code[];
  /** The older fields a2a.json always has that are copied in the object literal (older field → expression). */
  readonly inLiteral: ReadonlyMap<string, string>;
}

/** The function toward the older version of a pair, as lines. */
export function encodeFn(env: JsonEnv, p: Pair): Code[] {
  const { d03, d10 } = p;
  const rules = ruleOf(env, d03);
  const isPart = rules.rule.kind === "part";
  const array = rules.rule.kind === "array";
  // An array result is a list; a part may have no form (undefined).
  const result = array
    ? code`${rt(env, "JsonValue")}[]`
    : code`${rt(env, "JsonObject")}${isPart ? " | undefined" : ""}`;
  const fn = (body: readonly Code[]) => printedFunction(env, encName(p), [["from", env.shape(d10)]], result, body);
  const form = p.json.toOlder;
  if (form.kind === "part") return fn(partCode.toOlder(encodeCtx(env, p)));
  if (form.kind === "union") return fn(unionToOlder(env, p));
  if (form.kind !== "fields") return fn(wholeToOlder(env, p, form.kind));
  const inLiteral = new Map<string, string>();
  const members = olderLiteral(env, p, form.steps, inLiteral);
  const head = code`const out${ty(env, code`: ${rt(env, "JsonObject")}`)} = `;
  const literal = members.length > 0 ? `{ ${members.join(", ")} }` : "{}";
  const out: EncodeOut = {
    body:
      widthOf(head) + literal.length < 116
        ? [code`${head}${literal};`]
        : [
            code`${head}{`,
            ...indented(
              "  ",
              members.map((x) => `${x},`),
            ),
            "};",
          ],
    inLiteral,
  };
  const c = encodeCtx(env, p);
  for (const s of form.steps) encodeStep(env, p, s, c, out);
  return fn([...out.body, "return out;"]);
}

function encodeCtx(env: JsonEnv, p: Pair): EncodeCtx {
  const { d03, d10 } = p;
  return {
    d03,
    d10,
    typed: env.typed,
    json: ty(env, code`: ${rt(env, "JsonObject")}`),
    get: (name) => get(d10, name),
    put: (name, expr, target = "out", desc = d03) => {
      const source = desc === d03 && d10.fields.some((f) => f.name === name) ? field(d10, name) : undefined;
      return put(env, desc, name, expr, target, source ? { source } : {});
    },
    toOlder: (name, expr, desc = d10, at = atKey(env, "path", name)) =>
      encCall(env, messageOf(field(desc, name))!, expr, at),
    lose: (name, reason) => code`${rt(env, "lose")}(lost, path, ${lit(name)}, ${reason});`,
    key: (name, desc = d03) => key03(env, name, desc),
    rt: (name) => rt(env, name),
    older: (short) => olderMessage(env, short),
    enumNumber: (path, valueName) => {
      const n = enumNumberAt(d10, path, valueName);
      if (n === undefined) throw new Error(`compat-json: ${d10.typeName}.${path} has no enum value ${valueName}`);
      return n;
    },
    planReason: (newerShort, name) => planReason(env, newerShort, name),
    dialectField: (name10) => p.plan.dialectFields[name10],
    resource: (name) => resource(env, d03, name),
  };
}

/** The members of the object literal an older message starts as: its kind and the keys a2a.json always has. */
function olderLiteral(env: JsonEnv, p: Pair, steps: readonly JsonStep[], inLiteral: Map<string, string>): string[] {
  const { d03 } = p;
  const rules = ruleOf(env, d03);
  const kind = rules.kindValue;
  const always = rules.fields.flatMap((r) => (r.always ? [r.f.name] : []));
  // The keys a2a.json always has start at their defaults, in the older message's order, as the codec writes them.
  // A plain string, bool or number the older side always has is copied in the literal itself.
  for (const s of steps) {
    if (s.op !== "value") continue;
    const f = s.from;
    const plain = f.presence === IMPLICIT && !f.oneof && f.fieldKind === "scalar";
    if (plain && s.older.always) inLiteral.set(s.to.name, `from.${f.localName}`);
  }
  // By key, first wins: a resource name's object (pushNotificationConfig.id) may be a field of its own too.
  const defaults = new Map<string, string>(kind ? [["kind", lit(kind)]] : []);
  for (const x of d03.fields.filter((f) => always.includes(f.name))) {
    const entries = isResourceName(env, d03, x.name)
      ? resourceDefaults(env, d03, x.name)
      : [[key03(env, x.name, d03), inLiteral.get(x.name) ?? jsLiteral(dialectDefault(d03, x.name, env.rules))]];
    for (const [k, v] of entries) if (!defaults.has(k!)) defaults.set(k!, v!);
  }
  return [...defaults].map(([k, v]) => `${propKey(k)}: ${v}`);
}

const isResourceName = (env: JsonEnv, d03: DescMessage, name03: string) =>
  fieldRule(env, d03, name03).resource !== undefined;

/**
 * The keys a resource name a2a.json always has starts as: each id its pattern names, at "" (tasks/{id} → id),
 * or {} for the object a dotted key sits in (pushNotificationConfig.id), in the order the codec writes them.
 */
function resourceDefaults(env: JsonEnv, d03: DescMessage, name03: string): [string, string][] {
  const roots = new Map<string, string>();
  for (const k of resource(env, d03, name03).keys) {
    const [root, ...rest] = k.split(".");
    if (!roots.has(root!)) roots.set(root!, rest.length > 0 ? "{}" : '""');
  }
  return [...roots];
}

/** One step toward the older version (src/compat/json-ir.ts), as statements. */
function encodeStep(env: JsonEnv, p: Pair, s: JsonStep, c: EncodeCtx, out: EncodeOut): void {
  if (s.op === "transform") {
    out.body.push(...transformCode(s.transform).toOlder(c));
    return;
  }
  const f = s.from;
  // A oneof member is tested by its case, which narrows the value's type.
  const value = f.oneof ? `from.${f.oneof.localName}.value` : `from.${f.localName}`;
  const cond = f.oneof ? `from.${f.oneof.localName}.case === ${lit(f.localName)}` : setTest(f, value)!;
  if (s.op === "dialect") {
    const write = code`${prop("out", s.key)} = ${writeValue(f, value, (name) => rt(env, name), undefined)};`;
    out.body.push(...guarded(cond, write));
    return;
  }
  if (s.op === "lose") {
    out.body.push(...guarded(cond, code`${rt(env, "lose")}(lost, path, ${lit(f.name)}, ${lit(s.reason)});`));
    return;
  }
  const to = s.to.name;
  if (s.op === "value" && out.inLiteral.has(to)) return;
  const target = prop("out", s.older.key);
  const sub = messageOf(f);
  const at = atKey(env, "path", f.name);
  // A field a2a.json always has is written as it is: at its zero value, that is its default there.
  const plain = f.presence === IMPLICIT && !f.oneof && (f.fieldKind === "scalar" || f.fieldKind === "enum");
  if (s.op === "value") {
    const from = { source: f, sourceTested: true, always: s.older.always && plain };
    const put1 = put(env, p.d03, to, value, "out", from);
    out.body.push(...(from.always ? [put1] : guarded(cond, put1)));
  } else if (s.op === "message" && s.older.always && f.fieldKind === "list") {
    out.body.push(code`${target} = ${eachOf(env, sub!)}(${value}, ${at}, lost, ${encFn(env, sub!)});`);
  } else if (s.op === "map") {
    const converted =
      s.of === "strings"
        ? code`${rt(env, "stringMapJson")}(${value})`
        : code`${rt(env, "eachKeyOf")}(${value}, ${at}, lost, ${encFn(env, sub!)})`;
    out.body.push(...guarded(cond, code`${target} = ${converted};`));
  } else {
    const converted =
      f.fieldKind === "list"
        ? code`${eachOf(env, sub!)}(${value}, ${at}, lost, ${encFn(env, sub!)})`
        : encCall(env, sub!, value, at);
    out.body.push(...guarded(cond, code`${target} = ${converted};`));
  }
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
