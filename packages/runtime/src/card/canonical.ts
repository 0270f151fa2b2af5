/**
 * The signed content of a v1.0 agent card (spec §8.4.1): the ProtoJSON card
 * rebuilt field by field from the AgentCard table (card-schema.ts), without
 * `signatures`, serialized with RFC 8785 (JCS, the `canonicalize` package).
 *
 * Field presence (§5.7, §8.4.1 rule 1), form "spec":
 *   REQUIRED fields        always present; a missing string, bool, list or
 *                          map becomes its default ("", false, [], {}); a
 *                          missing REQUIRED message stays absent (a message
 *                          has presence: nothing to reconstruct)
 *   `optional` fields,     present when set, even to the default value
 *   singular messages,
 *   oneof members
 *   other fields           omitted when default ("", false, [], {})
 *   map entries, Struct    kept as they are (they are data, not fields)
 *   unknown fields         dropped (§5.7: ignored) and reported by path, so a
 *                          verifier can say they are not covered
 *   null                   the field is unset (ProtoJSON)
 * Both the JSON name and the proto name of a field are accepted (ProtoJSON).
 *
 * Form "empties-dropped": the spec form with every "", null, [] and {} then
 * removed at any depth (also in maps and Structs), what the a2a-js and
 * a2a-python SDKs sign. The two forms differ only when the card holds an
 * empty value the spec form keeps (an empty REQUIRED description or skills
 * list, a scope-less security requirement, an empty Struct entry...).
 *
 * What the empties-dropped form loses (emptiesDroppedLoss): removing a FIELD
 * that is empty changes nothing a reader of the card sees (an empty string,
 * list or map, or an emptied message, reads as the field's default), but
 * removing a LIST ELEMENT, a MAP ENTRY or a STRUCT MEMBER does: `{}` in
 * securityRequirements is an anonymous alternative, `{}` in
 * supportedInterfaces one more interface, {"key": {}} in a requirement's
 * schemes the scheme it requires. A signature over that form does not cover
 * such a value, so anyone may add or change it; the verifier accepts the
 * form only when it loses none (verify.ts).
 *
 * A value of the wrong JSON type fails with CardFormError naming its path.
 */
import canonicalize from "canonicalize";
import { type CardField, cardMessage, isScalar } from "./card-schema.js";
import { emptiesLostIn } from "./empties-loss.js";
import { set } from "../core/records.js";

export type CanonicalForm = "spec" | "empties-dropped";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A card value of the wrong JSON type, or two members of one oneof. */
export class CardFormError extends Error {
  override name = "CardFormError";
  constructor(
    /** JSON path of the value, e.g. "skills[0].tags". */
    readonly path: string,
    reason: string,
  ) {
    super(`agent card ${path}: ${reason}`);
  }
}

export interface CanonicalCard {
  /** The RFC 8785 text that is signed. */
  readonly text: string;
  /**
   * The card as that text covers it, with its `signatures` as given: the v1.0 AgentCard's fields under their
   * JSON names, unknown fields left out. What a reader of a verified card should read.
   */
  readonly card: Readonly<Record<string, unknown>>;
  /** Paths of fields outside the v1.0 AgentCard, which the signature does not cover. */
  readonly ignoredFields: readonly string[];
}

/** The canonical text of a v1.0 ProtoJSON agent card in the given form (default "spec"). */
export function canonicalizeAgentCard(card: unknown, form: CanonicalForm = "spec"): CanonicalCard {
  const ignored: string[] = [];
  const normalized = normalizeMessage(card, "AgentCard", "$", ignored);
  const signatures = normalized.signatures;
  delete normalized.signatures;
  const value = form === "spec" ? normalized : (dropEmpties(normalized) ?? {});
  const text = canonicalize(value);
  if (text === undefined) throw new CardFormError("$", "cannot be canonicalized");
  const covered = value as JsonObject;
  if (signatures !== undefined) set(covered, "signatures", signatures);
  return { text, card: covered, ignoredFields: ignored };
}

/**
 * The JSON path of the first list element, map entry or Struct member (e.g. "$.securityRequirements[1]") the
 * empties-dropped form removes from the card, undefined when it removes field values only (see the header).
 */
export function emptiesDroppedLoss(card: unknown): string | undefined {
  const normalized = normalizeMessage(card, "AgentCard", "$", []);
  delete normalized.signatures;
  return emptiesLostIn(normalized, "AgentCard", "$", emptinessTest());
}

/**
 * Whether dropEmpties would remove a value entirely: "", null, or a list or object of such values. Each list and
 * object is judged once (remembered for this test), so asking at every depth of a deep Struct stays linear.
 */
export function emptinessTest(): (value: Json) => boolean {
  const known = new WeakMap<object, boolean>();
  const isEmpty = (value: Json): boolean => {
    if (value === "" || value === null) return true;
    if (typeof value !== "object") return false;
    const seen = known.get(value);
    if (seen !== undefined) return seen;
    const empty = Array.isArray(value) ? value.every(isEmpty) : Object.values(value).every(isEmpty);
    known.set(value, empty);
    return empty;
  };
  return isEmpty;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function normalizeMessage(value: unknown, type: string, path: string, ignored: string[]): JsonObject {
  if (!isObject(value)) throw new CardFormError(path, `expected a ${type} object`);
  const message = cardMessage(type);
  const known = new Set(message.fields.flatMap((f) => [f.json, f.proto]));
  for (const key of Object.keys(value)) if (!known.has(key)) ignored.push(`${path}.${key}`);
  const out: JsonObject = {};
  let setMember: string | undefined;
  for (const field of message.fields) {
    const raw = fieldValue(value, field, path);
    const at = `${path}.${field.json}`;
    const normalized = normalizeField(raw, field, at, ignored);
    if (normalized === undefined) continue;
    if (message.oneof) {
      if (setMember !== undefined) throw new CardFormError(path, `sets both ${setMember} and ${field.json} of a oneof`);
      setMember = field.json;
    }
    set(out, field.json, normalized);
  }
  return out;
}

function fieldValue(value: Record<string, unknown>, field: CardField, path: string): unknown {
  const byJson = value[field.json];
  const byProto = field.proto === field.json ? undefined : value[field.proto];
  if (byJson !== undefined && byJson !== null && byProto !== undefined && byProto !== null) {
    throw new CardFormError(`${path}.${field.json}`, `given twice (also as ${field.proto})`);
  }
  return byJson ?? byProto ?? undefined;
}

/** The field's value in the canonical form, or undefined when it is omitted. */
function normalizeField(raw: unknown, field: CardField, at: string, ignored: string[]): Json | undefined {
  if (field.shape === "list") {
    if (raw === undefined) return field.presence === "required" ? [] : undefined;
    if (!Array.isArray(raw)) throw new CardFormError(at, "expected a list");
    const list = raw.map((item, i) => normalizeValue(item, field.type, `${at}[${i}]`, ignored));
    return list.length > 0 || field.presence === "required" ? list : undefined;
  }
  if (field.shape === "map") {
    if (raw === undefined) return field.presence === "required" ? {} : undefined;
    if (!isObject(raw)) throw new CardFormError(at, "expected an object (a map)");
    const map: JsonObject = {};
    for (const [key, item] of Object.entries(raw))
      set(map, key, normalizeValue(item, field.type, `${at}.${key}`, ignored));
    return Object.keys(map).length > 0 || field.presence === "required" ? map : undefined;
  }
  if (raw === undefined) {
    if (field.presence !== "required" || !isScalar(field.type)) return undefined;
    return field.type === "bool" ? false : "";
  }
  const value = normalizeValue(raw, field.type, at, ignored);
  if (field.presence === "implicit" && (value === "" || value === false)) return undefined;
  return value;
}

function normalizeValue(raw: unknown, type: string, at: string, ignored: string[]): Json {
  if (type === "string") {
    if (typeof raw !== "string") throw new CardFormError(at, "expected a string");
    return raw;
  }
  if (type === "bool") {
    if (typeof raw !== "boolean") throw new CardFormError(at, "expected true or false");
    return raw;
  }
  if (type === "struct") {
    if (!isObject(raw)) throw new CardFormError(at, "expected an object (a Struct)");
    return jsonValue(raw, at) as JsonObject;
  }
  return normalizeMessage(raw, type, at, ignored);
}

/** A JSON value as it is (a Struct's content), refusing what JSON cannot hold. */
function jsonValue(raw: unknown, at: string): Json {
  if (raw === null || typeof raw === "string" || typeof raw === "boolean") return raw;
  if (typeof raw === "number") {
    if (!Number.isFinite(raw)) throw new CardFormError(at, "expected a finite number");
    return raw;
  }
  if (Array.isArray(raw)) return raw.map((item, i) => jsonValue(item, `${at}[${i}]`));
  if (isObject(raw)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(raw)) set(out, key, jsonValue(item, `${at}.${key}`));
    return out;
  }
  throw new CardFormError(at, `expected a JSON value, got ${typeof raw}`);
}

/** The value without "", null, [] and {} at any depth; undefined when nothing is left. */
function dropEmpties(value: Json): Json | undefined {
  if (value === "" || value === null) return undefined;
  if (Array.isArray(value)) {
    const list = value.map(dropEmpties).filter((v): v is Json => v !== undefined);
    return list.length > 0 ? list : undefined;
  }
  if (typeof value === "object") {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      const kept = dropEmpties(item);
      if (kept !== undefined) set(out, key, kept);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}
