/**
 * Which pairs the direct conversions (compat-json-module.ts) can write: a
 * pair the dialect writes whole by a rule with a conversion here, or one
 * whose every plan step has code (copies of the value kinds
 * compat-json-fields.ts handles, messages that are pairs, losses, moves,
 * transforms compat-json-transforms.ts writes). Every pair that cannot be
 * written, and every dialectFields entry without code, is named: the plugin
 * collects them with the other problems before anything is written
 * (checkJsonConversions).
 */
import type { PlanStep } from "../../compat/compat-plan.js";
import { wholeRule } from "./compat-json-dialect.js";
import type { DescFile } from "@bufbuild/protobuf";
import type { CompatPlan } from "../../compat/compat-plan.js";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime/protocol";
import type { Problems } from "../../generation-error.js";
import type { DialectIr } from "../../compat/dialect-ir.js";
import {
  isUnion,
  mapCopy,
  pairEnv,
  ruleOf,
  type Dir,
  type JsonEnv,
  type Pair,
  type PairEnv,
} from "./compat-json-env.js";
import { copyable, field, messageOf, valueKind } from "./compat-json-fields.js";
import { transformCode } from "./compat-json-transforms.js";

/** Collects, as problems, every pair of `plan` (and dialectFields entry) whose a2a.json conversion cannot be written. */
export function checkJsonConversions(
  plan: CompatPlan,
  dialect: { readonly dialect: JsonRpcDialect; readonly rules: DialectIr },
  files: readonly DescFile[],
  problems: Problems,
): void {
  for (const p of pairProblems(pairEnv(plan, dialect, files))) problems.add(p);
}

/** Throws naming every pair that cannot be written (the plugin has reported them before emission). */
export function checkPairs(env: JsonEnv): void {
  const found = pairProblems(env);
  if (found.length > 0) throw new Error(`compat-json: no conversion can be written for:\n  ${found.join("\n  ")}`);
}

function pairProblems(env: PairEnv): string[] {
  const pairs = [...new Set(env.pairs.values())];
  return pairs.flatMap((p) => [
    ...dialectFieldProblems(env, p),
    ...(["toNewer", "toOlder"] as const).flatMap((dir) => {
      const why = problem(env, p, dir);
      return why ? [`${p.plan.entry ?? p.d10.typeName} (${p.d03.typeName} ↔ ${p.d10.typeName}): ${why}`] : [];
    }),
  ]);
}

/** What a2a.json holds and the older proto does not: plain values only, nested keys for the Part only. */
function dialectFieldProblems(env: PairEnv, p: Pair): string[] {
  const where = p.plan.entry ?? p.d10.typeName;
  const special = ruleOf(env, p.d03).rule.kind === "part";
  return Object.entries(p.plan.dialectFields).flatMap(([name10, key]) => {
    const t = field(p.d10, name10);
    if (!special && key.includes("."))
      return [`${where}: dialectFields ${name10}: "${key}" is nested; only the Part conversion reads nested keys`];
    const kind = valueKind(t);
    if (!special && !(kind && (t.fieldKind !== "list" || kind === "string") && kind !== "enum"))
      return [`${where}: dialectFields ${name10}: its type has no a2a.json conversion`];
    return [];
  });
}

/** Why the pair cannot be written in this direction; undefined when it can. */
function problem(env: PairEnv, p: Pair, dir: Dir): string | undefined {
  const rule = wholeRule(env, p.d03);
  if (rule === "null result" || rule === "wrapper") return `the dialect's ${rule} rule has no direct conversion`;
  if (rule !== undefined) return undefined; // written whole (wholeToNewer, wholeToOlder)
  const bad = (dir === "toNewer" ? p.plan.toNewer : p.plan.toOlder).find((s) => !stepOk(env, p, dir, s));
  return bad && `${dir} step ${bad.from} (${bad.op}${bad.op === "transform" ? ` ${bad.transform}` : ""})`;
}

function stepOk(env: PairEnv, p: Pair, dir: Dir, s: PlanStep): boolean {
  const [src, out] = dir === "toNewer" ? [p.d03, p.d10] : [p.d10, p.d03];
  if (s.op === "transform")
    return ruleOf(env, p.d03).rule.kind === "part"
      ? s.transform === "part"
      : transformCode(s.transform)[dir] !== undefined;
  const f = field(src, s.from);
  if (s.op === "copy") return copyable(f, field(out, s.to)) || mapCopy(env, f, field(out, s.to)) !== undefined;
  if (s.op === "message") {
    const sub = messageOf(f);
    return (
      sub !== undefined &&
      env.pairs.has(sub.typeName) &&
      f.fieldKind !== "map" &&
      (!isUnion(env, p.d03) || (f.oneof !== undefined && f.fieldKind === "message"))
    );
  }
  if (isUnion(env, p.d03)) return false; // a union holds its members only
  return s.op === "moved" || (f.fieldKind !== "map" && (messageOf(f) !== undefined || valueKind(f) !== undefined));
}
