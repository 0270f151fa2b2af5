/**
 * Writes, into the JSON-RPC module of the cross-version modules (compat-module.ts), conversions
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
 *
 * The jobs, one module each: compat-json-env.ts (pairs, imports, shared code
 * pieces), compat-json-check.ts (which pairs can be written),
 * compat-json-decode.ts / compat-json-encode.ts (the two directions),
 * compat-json-api.ts (the exported table and functions). All code is printed
 * as protoplugin printables with import symbols.
 */
import type { DescFile } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable, Target } from "@bufbuild/protoplugin";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime/protocol";
import type { CompatPlan } from "../../compat/compat-plan.js";
import { printCompatJsonApi, type CompatJsonApi } from "./compat-json-api.js";
import { checkPairs } from "./compat-json-check.js";
import { decodeFn } from "./compat-json-decode.js";
import { encodeFn } from "./compat-json-encode.js";
import { createEnv, decName, encName, ruleOf } from "./compat-json-env.js";
import type { DialectIr } from "../../compat/dialect-ir.js";
import { compatJsonModule } from "../print/runtime-entries.js";

export interface CompatJsonInputs {
  readonly newer: DescFile;
  readonly older: DescFile;
  /** Module of the older version's definition (its dialect table). */
  readonly olderA2a: string;
  /** The exported name of the older definition in olderA2a. */
  readonly olderDefinition: string;
  readonly dialect: JsonRpcDialect;
  /** The dialect's rules of the older messages (src/compat/dialect-ir.ts). */
  readonly rules: DialectIr;
  /** The message converter, `a2aCompat` of the messages module. */
  readonly converter: Printable;
}

/** Prints the direct conversions into `f`; returns the name of the exported table. */
export function emitCompatJson(f: GeneratedFile, target: Target, plan: CompatPlan, files: CompatJsonInputs): string {
  const env = createEnv(f, target === "ts", plan, files, [files.newer, files.older]);
  checkPairs(env);
  const ordered = [...new Set(env.pairs.values())];
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
      mayLeaveOut: ruleOf(env, p.d03).rule.kind === "part",
    })),
    table: tableName,
    converter: files.converter,
    compatJsonModule,
    shape: env.shape,
  };
  if (target !== "dts") {
    f.print(`// ---- ${plan.older} JSON-RPC (a2a.json) ↔ ${plan.newer} messages, in one pass ----`);
    f.print();
    // The functions are written first: they name the enum tables, which are printed before them.
    const fns = ordered.map((p) => [decodeFn(env, p), encodeFn(env, p)]);
    for (const d of env.enums.decls) f.print(d);
    for (const lines of fns.flat()) {
      f.print();
      for (const line of lines) f.print(line);
    }
  }
  printCompatJsonApi(f, target, api);
  return tableName;
}
