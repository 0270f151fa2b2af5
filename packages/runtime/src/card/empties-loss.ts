/**
 * Finds what the empties-dropped canonical form (canonical.ts) loses from a normalized v1.0 card: walking the
 * card with its field table (card-schema.ts), a field may be dropped when empty (it reads as its default), but
 * an element of a list, an entry of a map, or a member of a Struct (at any depth inside it) that is empty is
 * data the form removes. The first such value's JSON path is the answer; undefined when there is none.
 */
import { cardMessage, isScalar } from "./card-schema.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Whether the empties-dropped form removes the value entirely (canonical.ts's dropEmpties). */
export type IsEmpty = (value: Json) => boolean;

const isObject = (value: Json): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function items(value: Json, at: string): [string, Json][] {
  if (Array.isArray(value)) return value.map((item, i) => [`${at}[${i}]`, item]);
  if (isObject(value)) return Object.entries(value).map(([key, item]) => [`${at}.${key}`, item]);
  return [];
}

/** A Struct's content: every member and element is data, at any depth. */
function lostInStruct(value: Json, at: string, isEmpty: IsEmpty): string | undefined {
  for (const [path, item] of items(value, at)) {
    if (isEmpty(item)) return path;
    const lost = lostInStruct(item, path, isEmpty);
    if (lost !== undefined) return lost;
  }
  return undefined;
}

function lostInValue(value: Json, type: string, at: string, isEmpty: IsEmpty): string | undefined {
  if (isScalar(type)) return undefined;
  if (type === "struct") return lostInStruct(value, at, isEmpty);
  return isObject(value) ? emptiesLostIn(value, type, at, isEmpty) : undefined;
}

/** The first list element, map entry or Struct member of the message that the form removes (see the header). */
export function emptiesLostIn(message: JsonObject, type: string, at: string, isEmpty: IsEmpty): string | undefined {
  for (const field of cardMessage(type).fields) {
    const value = message[field.json];
    if (value === undefined) continue;
    const path = `${at}.${field.json}`;
    if (field.shape === "single") {
      const lost = lostInValue(value, field.type, path, isEmpty);
      if (lost !== undefined) return lost;
      continue;
    }
    for (const [itemPath, item] of items(value, path)) {
      if (isEmpty(item)) return itemPath;
      const lost = lostInValue(item, field.type, itemPath, isEmpty);
      if (lost !== undefined) return lost;
    }
  }
  return undefined;
}
