/**
 * The schemas of an OpenAPI 3.1 or OpenRPC document, for validating live payloads with ajv (JSON Schema 2020-12,
 * as both formats use). The rule:
 *
 *   - The whole document is registered in ajv under an id, so `#/components/...` references resolve where they
 *     stand; a schema is compiled by its JSON pointer in the document (`id#/paths/~1tasks/get/...`).
 *   - The document is registered twice: as written, and "closed": every schema object that lists `properties`
 *     (and says nothing of further properties) also gets `unevaluatedProperties: false`, so a payload field the
 *     document does not name is reported too. Branches of allOf/oneOf/anyOf are not closed themselves (they name
 *     only the properties they decide on); the schema holding them is. Nor is a component an allOf branch
 *     names by `$ref` (v0.3's SecurityScheme: APIKeySecurityScheme plus `type`): closed, it would refuse the
 *     properties its sibling branches add, which unevaluatedProperties does not see across a `$ref`.
 *   - A failure is reported as text naming the place: the document pointer, the payload path and ajv's message.
 *
 * Formats (date-time, int32) are not checked (ajv ships no format validators; ajv-formats is not a dependency).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

/** A JSON object read from a document. */
export type JsonObject = { readonly [key: string]: unknown };

export const isObject = (x: unknown): x is JsonObject => typeof x === "object" && x !== null && !Array.isArray(x);

/** `x` as an object; throws naming `where` when it is not one. */
export function object(x: unknown, where: string): JsonObject {
  if (!isObject(x)) throw new Error(`${where}: expected an object, got ${JSON.stringify(x)?.slice(0, 80)}`);
  return x;
}

/** One JSON pointer token (RFC 6901) as it stands in a URI fragment. */
export const pointerToken = (token: string) => encodeURIComponent(token.replaceAll("~", "~0").replaceAll("/", "~1"));

/** The value at an RFC 6901 pointer made of `tokens`; throws naming the pointer when a step is missing. */
export function at(doc: unknown, tokens: readonly string[]): unknown {
  let node = doc;
  for (const [i, t] of tokens.entries()) {
    const next = isObject(node) ? node[t] : Array.isArray(node) ? node[Number(t)] : undefined;
    if (next === undefined) throw new Error(`no ${tokens.slice(0, i + 1).join("/")} in the document`);
    node = next;
  }
  return node;
}

/** Keys under which a schema object holds subschemas to close, and whether they are applicator branches. */
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs"] as const;
const SUBSCHEMAS = ["items", "additionalProperties", "contentSchema", "not", "if", "then", "else"] as const;
const BRANCHES = ["allOf", "oneOf", "anyOf", "prefixItems"] as const;

/** A copy of `schema` with every object schema that lists properties closed; `branch`: do not close this one. */
function closeSchema(schema: unknown, branch = false): unknown {
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = { ...schema };
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, s]) => [k, closeSchema(s)]));
  }
  for (const key of SUBSCHEMAS) if (key in schema) out[key] = closeSchema(schema[key]);
  for (const key of BRANCHES) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((s) => closeSchema(s, true));
  }
  const open = "additionalProperties" in schema || "unevaluatedProperties" in schema;
  if (!branch && isObject(schema["properties"]) && !open) out["unevaluatedProperties"] = false;
  return out;
}

/**
 * A copy of a document with every schema closed. Schemas stand under `schema` (OpenAPI media types, parameters;
 * OpenRPC params, result), `schemas` (components: a map of schemas) and `contentSchema`.
 */
export function closeDocument(node: unknown, allOfRefs: ReadonlySet<string> = allOfBranchRefs(node)): unknown {
  if (Array.isArray(node)) return node.map((n) => closeDocument(n, allOfRefs));
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => {
      if (k === "schema" || k === "contentSchema") return [k, closeSchema(v)];
      if (k === "schemas" && isObject(v))
        return [k, Object.fromEntries(Object.entries(v).map(([n, s]) => [n, closeSchema(s, allOfRefs.has(n))]))];
      return [k, closeDocument(v, allOfRefs)];
    }),
  );
}

/** The component schema names that some allOf names as a branch by `$ref` (`#/components/schemas/<name>`). */
function allOfBranchRefs(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) allOfBranchRefs(n, found);
  if (!isObject(node)) return found;
  const branches = node["allOf"];
  if (Array.isArray(branches)) {
    for (const b of branches) {
      const ref = isObject(b) ? b["$ref"] : undefined;
      if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) found.add(ref.slice(21));
    }
  }
  for (const v of Object.values(node)) allOfBranchRefs(v, found);
  return found;
}

export interface DocSchemas {
  /**
   * Validates `value` against the schema at `tokens` in the document, as written and closed; returns the problems
   * (empty when it validates), each naming `where`, the schema's pointer and the payload path.
   */
  check(tokens: readonly string[], value: unknown, where: string): string[];
}

/** The schemas of `doc`, registered in a fresh ajv under `id` (and `id`-closed). */
export function docSchemas(doc: unknown, id: string): DocSchemas {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(object(doc, id), id);
  ajv.addSchema(object(closeDocument(doc), id), `${id}-closed`);
  const compiled = new Map<string, ValidateFunction>();
  const compile = (ref: string) => {
    const known = compiled.get(ref);
    if (known) return known;
    const fn = ajv.compile({ $ref: ref });
    compiled.set(ref, fn);
    return fn;
  };
  return {
    check(tokens, value, where) {
      at(doc, tokens); // a missing schema is the caller's error, named as such
      const fragment = `#/${tokens.map(pointerToken).join("/")}`;
      const problems: string[] = [];
      for (const [variant, ref] of [
        ["", `${id}${fragment}`],
        [" (closed: a field the document does not name)", `${id}-closed${fragment}`],
      ] as const) {
        const fn = compile(ref);
        if (fn(value)) continue;
        for (const e of fn.errors ?? []) {
          const extra = isObject(e.params) ? ` ${JSON.stringify(e.params)}` : "";
          problems.push(`${where}: ${tokens.join("/")}${variant}: at ${e.instancePath || "/"} ${e.message}${extra}`);
        }
        break; // the closed variant only adds news when the open one passes
      }
      return problems;
    },
  };
}
