/**
 * The agent card a dual-version server gives a request that names no version:
 * one JSON object that v0.3 clients read as a v0.3 card and v1.0 clients as a
 * v1.0 card. It is the v0.3 card (a2a.json form, e.g. toOlderJson of
 * the v1.0 card) with the v1.0 card's ProtoJSON members added. a2a.json's
 * AgentCard schemas allow members they do not name, so it is a valid v0.3
 * card; a v1.0 reader that ignores unknown fields (fromJson with
 * ignoreUnknownFields, as clients should) skips the v0.3-only members.
 *
 * Merge rule: an object gets the members of both, in the v0.3 card's order
 * first; a member both have is merged the same way when both values are
 * objects, item by item when both are lists of one length, and kept when the
 * values are equal. Anything else is a conflict: MergedCardError names its
 * path. The two forms of one card share these names:
 *
 *   equal in both      name, description, version, documentationUrl,
 *                      iconUrl, provider, defaultInputModes,
 *                      defaultOutputModes, signatures
 *   capabilities       streaming, pushNotifications, extensions; v1.0 adds
 *                      extendedAgentCard (v0.3: supportsAuthenticatedExtendedCard)
 *   skills             the same list; each skill carries v0.3 `security`
 *                      beside v1.0 `securityRequirements`
 *   securitySchemes    the same names; each scheme carries the v0.3 members
 *                      (`type`, `in`, `scheme`, `flows`, …) beside the v1.0
 *                      oneof member (`apiKeySecurityScheme`, …): no name is
 *                      in both
 *
 * and each has its own: v1.0 supportedInterfaces, securityRequirements; v0.3
 * url, preferredTransport, additionalInterfaces, protocolVersion, security,
 * supportsAuthenticatedExtendedCard. A v1.0 reader that keeps unknown fields
 * out (fromJson without ignoreUnknownFields) refuses the merged card: it must
 * ask for its version's card with A2A-Version. So must a client that checks
 * card signatures, since a signature covers the card it was made for.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { set } from "../core/records.js";

export class MergedCardError extends Error {
  override name = "MergedCardError";
}

/** The card both versions read: `older` (a2a.json form) with the members of `newer` (v1.0 ProtoJSON) added. */
export function mergeAgentCards(newer: unknown, older: unknown): JsonObject {
  if (!isObject(newer) || !isObject(older)) {
    throw new MergedCardError("agent card: the v1.0 and the v0.3 card must both be JSON objects");
  }
  return mergeObjects(older, newer, "");
}

function merge(older: JsonValue, newer: JsonValue, path: string): JsonValue {
  if (isObject(older) && isObject(newer)) return mergeObjects(older, newer, path);
  if (Array.isArray(older) && Array.isArray(newer) && older.length === newer.length) {
    return older.map((item, i) => merge(item, newer[i]!, `${path}[${i}]`));
  }
  if (JSON.stringify(older) === JSON.stringify(newer)) return older;
  throw new MergedCardError(
    `agent card: the v1.0 and the v0.3 card disagree at ${path}: ` +
      `${JSON.stringify(newer)} (v1.0) vs ${JSON.stringify(older)} (v0.3)`,
  );
}

function mergeObjects(older: JsonObject, newer: JsonObject, path: string): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(older)) {
    const other = Object.hasOwn(newer, key) ? newer[key] : undefined;
    // set, not an assignment: a member named __proto__ (JSON.parse makes it an own one) stays a member.
    set(out, key, other === undefined ? value : merge(value, other, path === "" ? key : `${path}.${key}`));
  }
  for (const [key, value] of Object.entries(newer)) if (!Object.hasOwn(out, key)) set(out, key, value);
  return out;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
