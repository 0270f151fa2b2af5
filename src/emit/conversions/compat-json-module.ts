/**
 * Prints, into the JSON-RPC module of the cross-version modules (compat-module.ts), the conversions
 * between the older version's JSON-RPC dialect (a2a.json) and the newer
 * version's messages in one pass, without building the older proto's
 * messages in between, from what src/compat/json-ir.ts derives: each step of
 * the message conversion IR composed with the dialect's rule of its older
 * field, or the dialect's whole-message form (part, union, typed union, list
 * map, array result). They give what the plan's path gives (dialect codec →
 * fromJson → converter, and back), which test/compat-json.test.ts checks; the
 * version bridge serves v0.3 JSON-RPC with them (the `a2aCompatJson` table).
 * A pair with no a2a.json form has been reported while planning: nothing is
 * converted through the older proto at run time.
 *
 * Loss paths name dialect keys toward the newer version and newer field
 * names toward the older one, as each side spells them.
 *
 * The jobs, one module each: compat-json-env.ts (pairs, imports, shared code
 * pieces), compat-json-decode.ts / compat-json-encode.ts (the two directions,
 * a writer per step), compat-json-dialect.ts (the whole-message forms),
 * compat-json-transforms.ts (the named transforms), compat-json-api.ts (the
 * exported table and functions). All code is printed as protoplugin
 * printables with import symbols.
 */
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import { printCompatJsonApi, type CompatJsonApi } from "./compat-json-api.js";
import { decodeFns } from "./compat-json-decode.js";
import { encodeFn } from "./compat-json-encode.js";
import { createEnv, decName, encName, type JsonEnv, type JsonSources } from "./compat-json-env.js";
import type { TargetPrinter } from "../print/target-printer.js";
import { wrapLine } from "../print/wrap-line.js";

export interface CompatJsonInputs extends JsonSources {
  /** Module of the older version's definition (its dialect table). */
  readonly olderA2a: string;
  /** The exported name of the older definition in olderA2a. */
  readonly olderDefinition: string;
  /** The message converter, `a2aCompat` of the messages module. */
  readonly converter: Printable;
}

/** Prints the direct conversions into `f` (their declarations in a d.ts); returns the name of the exported table. */
export function emitCompatJson(f: GeneratedFile, out: TargetPrinter, files: CompatJsonInputs): string {
  const tableName = "a2aCompatJson";
  const api = (env: JsonEnv): CompatJsonApi => ({
    older: env.plan.older,
    newer: env.plan.newer,
    entries: pairsOf(env).map((p) => ({
      older: p.d03.typeName,
      newer: p.d10,
      fromOlder: decName(p),
      toOlder: encName(p),
      // A part without content has no a2a.json form: its function gives undefined, written {} outside a list.
      mayLeaveOut: p.json.rules.rule.kind === "part",
    })),
    table: tableName,
    converter: files.converter,
    shape: env.shape,
  });
  out.module({
    declarations: () => printCompatJsonApi(f, out, true, api(createEnv(f, true, files))),
    values(typed) {
      const env = createEnv(f, typed, files);
      f.print(`// ---- ${env.plan.older} JSON-RPC (a2a.json) ↔ ${env.plan.newer} messages, in one pass ----`);
      f.print();
      // The functions are written first: they name the enum tables, which are printed before them.
      const fns = pairsOf(env).map((p) => [...decodeFns(env, p), encodeFn(env, p)]);
      for (const d of env.enums.decls) f.print(d);
      for (const lines of fns.flat()) {
        f.print();
        for (const line of lines) for (const l of wrapLine([line])) f.print(...l);
      }
      printCompatJsonApi(f, out, typed, api(env));
    },
  });
  return tableName;
}

/** Each pair once, in the order of first use. */
const pairsOf = (env: JsonEnv) => [...new Set(env.pairs.values())];
