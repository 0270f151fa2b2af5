/**
 * Writes the direct conversions toward the newer version (compat-json-module.ts):
 * for each pair, a function (older dialect JSON, its path, the losses) → newer
 * message. A Part, a union or a message the dialect writes whole gets its body
 * from compat-json-transforms.ts / compat-json-dialect.ts; any other is read
 * key by key from its steps toward the newer version (src/compat/json-ir.ts), its transforms
 * after the fields, then the keys the older message has no field for reported. A transform that has a
 * function of its own (TransformCode.ownFunction) is printed after the pair's function, which calls it.
 */
import type { JsonStep } from "../../compat/json-ir.js";
import { unionToNewer, wholeToNewer } from "./compat-json-dialect.js";
import {
  assign,
  atKey,
  declareZero,
  decCall,
  decFn,
  decName,
  decPartName,
  printedFunction,
  ruleOf,
  key03,
  olderMessage,
  planReason,
  read,
  readAs,
  resource,
  rt,
  ty,
  keyCheck,
  unknownKeys,
  zero,
  type JsonEnv,
  type Pair,
} from "./compat-json-env.js";
import {
  code,
  field,
  IMPLICIT,
  isSetCode,
  lit,
  messageOf,
  prop,
  readValue,
  setTest,
  valueKind,
  type Code,
} from "./compat-json-fields.js";
import { guarded, ifBlock, indented } from "../print/code-layout.js";
import { partCode, transformCode, type DecodeCtx, type TransformName } from "./compat-json-transforms.js";

/** What the steps of one conversion write: statements, transforms for after them, oneofs and transforms seen. */
interface StepOut {
  readonly body: Code[];
  readonly later: Code[];
  readonly oneofs: Set<string>;
  /** The functions of its transforms that have one, as lines. */
  readonly helpers: Code[][];
  /** Whether a statement reads a key's value into `value`. */
  usesValue: boolean;
}

/** The functions toward the newer version of a pair, as lines: its conversion, then its transforms' own. */
export function decodeFns(env: JsonEnv, p: Pair): Code[][] {
  const { d03, d10 } = p;
  const out: StepOut = { body: [], later: [], oneofs: new Set(), helpers: [], usesValue: false };
  const c = decodeCtx(env, p, out);
  const fn = (body: readonly Code[]) => [
    printedFunction(env, decName(p), [["json", "unknown"]], env.shape(d10), body),
    ...out.helpers,
  ];
  const form = p.json.toNewer;
  if (form.kind === "part") return fn(partCode.toNewer(c));
  if (form.kind === "union") return fn(unionToNewer(env, p));
  if (form.kind !== "fields") return fn(wholeToNewer(env, p, form.kind));
  const kind = ruleOf(env, d03).kindValue;
  const start: Code[] = [code`const from = ${rt(env, "object")}(json, path, ${lit(d03.typeName)});`];
  if (kind !== undefined) {
    const what = lit(d03.typeName);
    const refuse = code`${rt(env, "refuseKind")}(${rt(env, "pathOf")}(path), ${what}, from["kind"], ${lit(kind)});`;
    start.push(...guarded(code`from["kind"] !== undefined && from["kind"] !== ${lit(kind)}`, refuse));
  }
  for (const s of form.steps) decodeStep(env, p, s, c, out);
  const extra = dialectFieldReads(env, p, out);
  const body: Code[] = [
    ...start,
    ...declareZero(env, "out", d10),
    ...(out.usesValue ? [code`let value${ty(env, ": unknown")};`] : []),
    ...out.body,
    ...extra,
    ...out.later,
    ...unknownKeys(env, d03, "from", "path", Object.values(p.plan.dialectFields)),
    "return out;",
  ];
  return fn(body);
}

/** What a2a.json holds and the older proto does not (dialectFields), read into the newer fields. */
function dialectFieldReads(env: JsonEnv, p: Pair, out: StepOut): Code[] {
  return p.json.dialectReads.flatMap(({ to: t, key }) => {
    out.usesValue = true;
    const name10 = t.name;
    const what = lit(`${p.d03.typeName} ${key}`);
    const value =
      t.fieldKind === "list" && valueKind(t) === "string"
        ? code`${rt(env, "strings")}(value, path, ${lit(key)}, ${what})`
        : readValue(
            t,
            "value",
            "path",
            what,
            (name) => rt(env, name),
            () => undefined,
          );
    return guarded(code`(value = ${prop("from", key)}) != null`, assign(p.d10, name10, value));
  });
}

function decodeCtx(env: JsonEnv, p: Pair, out: StepOut): DecodeCtx {
  const { d03, d10 } = p;
  return {
    d03,
    d10,
    typed: env.typed,
    json: ty(env, code`: ${rt(env, "JsonObject")}`),
    read: (name, obj = "from", desc = d03) => {
      out.usesValue = true;
      return read(env, desc, name, obj);
    },
    value: (name, expr, desc = d03, where = "path") =>
      readAs(env, desc, name, expr, desc === d03 ? d10.fields.find((x) => x.name === name) : undefined, where),
    set: (name10, expr) => assign(d10, name10, expr),
    toNewer: (name, expr, desc = d03, parentAt = "path") =>
      decCall(env, messageOf(field(desc, name))!, expr, atKey(env, parentAt, key03(env, name, desc))),
    lose: (key, reason) => code`${rt(env, "lose")}(lost, path, ${lit(key)}, ${reason});`,
    unknownKeys: (desc, obj, atExpr) => unknownKeys(env, desc, obj, atExpr),
    keyCheck: (what, obj, atExpr, known) => keyCheck(env, what, obj, atExpr, known),
    zero: (short) => zero(env, env.messages.get(`${env.plan.newer}.${short}`)!),
    declareZero: (name, short) => declareZero(env, name, env.messages.get(`${env.plan.newer}.${short}`)!),
    key03: (name, desc = d03) => key03(env, name, desc),
    rt: (name) => rt(env, name),
    older: (short) => olderMessage(env, short),
    dialectField: (name10) => p.plan.dialectFields[name10],
    fnToNewer: (name, desc = d03) => decFn(env, messageOf(field(desc, name))!),
    planReason: (newerShort, name) => planReason(env, newerShort, name),
    resource: (name) => resource(env, d03, name),
  };
}

/** One step toward the newer version (src/compat/json-ir.ts), as statements (transforms kept for after). */
function decodeStep(env: JsonEnv, p: Pair, s: JsonStep, c: DecodeCtx, out: StepOut): void {
  if (s.op === "transform") {
    // Transforms run after the field steps, which they may complete (the card's capabilities).
    out.later.push(...transformToNewer(env, p, s.transform, c, out));
    return;
  }
  if (s.op === "dialect") return; // toward the older version only
  out.usesValue = true;
  const { d03, d10 } = p;
  const f = s.from;
  const k = key03(env, f.name, d03);
  const r = read(env, d03, f.name, "from");
  const present = code`(value = ${r}) != null`;
  // A member of an older oneof: only the first member a2a.json sets is kept, the others reported.
  const ifPresent = (...stmts: Code[]) =>
    f.oneof
      ? [code`if (${present}) {`, ...indented("  ", oneofMember(env, p, f.name, out, stmts)), "}"]
      : stmts.length === 1
        ? guarded(present, stmts[0]!)
        : ifBlock(present, stmts);
  if (s.op === "map") {
    const what = lit(`${d03.typeName}.${f.name}`);
    const at = atKey(env, "path", k);
    const value =
      s.of === "strings"
        ? code`${rt(env, "stringMap")}(value, ${at}, ${what})`
        : code`${rt(env, "eachKey")}(value, ${at}, ${what}, lost, ${decFn(env, messageOf(f)!)})`;
    out.body.push(...guarded(present, assign(d10, s.to.name, value)));
  } else if (s.op === "value") {
    const t = s.to;
    // Assigning a zero value matters only where the newer field tracks presence.
    // The value read is held in `read` to test it (a name no conversion toward the newer version uses otherwise).
    const test = t.oneof || t.presence !== IMPLICIT ? setTest(f, "read") : undefined;
    const value = readAs(env, d03, f.name, "value", t);
    const stmts =
      test && test !== "read !== undefined"
        ? [code`const read = ${value};`, code`if (${test}) ${assign(d10, t.name, "read")}`]
        : [assign(d10, t.name, value)];
    out.body.push(...ifPresent(...stmts));
  } else if (s.op === "message") {
    const sub = messageOf(f)!;
    const at = atKey(env, "path", k);
    const value =
      f.fieldKind === "list"
        ? code`${rt(env, "each")}(value, ${at}, ${lit(`${d03.typeName}.${f.name}`)}, lost, ${decFn(env, sub)})`
        : decCall(env, sub, "value", at);
    out.body.push(...ifPresent(assign(d10, s.to.name, value)));
  } else {
    // reported when the older proto would hold a set value
    const test = messageOf(f)
      ? f.fieldKind === "list"
        ? code`${rt(env, "array")}(value, path, ${lit(f.name)}).length > 0`
        : undefined
      : isSetCode(f, readAs(env, d03, f.name, "value"));
    const lose = code`${rt(env, "lose")}(lost, path, ${lit(k)}, ${lit(s.reason)});`;
    out.body.push(...guarded(test ? code`${present} && ${test}` : present, lose));
  }
}

/**
 * A transform toward the newer version, as the statements of the pair's function: its code, or a call of its own
 * function (added to out.helpers), which reads `from` and fills `out`.
 */
function transformToNewer(env: JsonEnv, p: Pair, name: TransformName, c: DecodeCtx, out: StepOut): Code[] {
  const t = transformCode(name);
  if (t.ownFunction === undefined) return t.toNewer(c);
  const own: StepOut = { body: [], later: [], oneofs: new Set(), helpers: out.helpers, usesValue: false };
  const lines = t.toNewer(decodeCtx(env, p, own));
  const fnName = decPartName(p, t.ownFunction);
  const params = [
    ["from", "Record<string, unknown>"],
    ["out", env.shape(p.d10)],
  ] as const;
  const body = [...(own.usesValue ? [code`let value${ty(env, ": unknown")};`] : []), ...lines];
  out.helpers.push(printedFunction(env, fnName, params, "void", body));
  return [`${fnName}(from, out, path, lost);`];
}

/** `stmt` (lines) for a member of an older oneof: done for the first member a2a.json sets, the others reported. */
function oneofMember(env: JsonEnv, p: Pair, name03: string, out: StepOut, stmts: readonly Code[]): Code[] {
  const oneof = field(p.d03, name03).oneof!;
  const k = key03(env, name03, p.d03);
  const flag = `one_${oneof.name}`;
  if (!out.oneofs.has(oneof.name)) {
    out.oneofs.add(oneof.name);
    out.body.push(`let ${flag} = false;`);
  }
  const reason = lit(`${p.d03.typeName}.${oneof.name} holds one member; ${k} was not kept`);
  return [
    `if (${flag}) {`,
    code`  ${rt(env, "lose")}(lost, path, ${lit(k)}, ${reason});`,
    "} else {",
    `  ${flag} = true;`,
    ...indented("  ", stmts),
    "}",
  ];
}
