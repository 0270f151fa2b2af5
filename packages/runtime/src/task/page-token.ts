/**
 * The in-memory store's page tokens: opaque to clients, base64url of a JSON
 * array naming the query they continue and the last key of the page.
 *
 *   ListTasks          ["t", scope, micros, taskId]
 *   push config lists  ["p", scope, configId]
 *
 * `scope` is a 32-bit FNV-1a hash of the tenant and the filters (tenant and
 * task for push configs), so a token handed to another tenant or another
 * query is refused instead of silently paging a different list. Paging is by
 * key, not by offset: a task committed or removed between two pages neither
 * repeats nor hides the tasks that did not move. Anything that does not
 * decode to the expected form (an id with a NUL character included, which no
 * key holds: store-keys.ts) is InvalidParamsError naming pageToken and the
 * operation.
 */
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { A2AError } from "../core/a2a-error.js";
import type { IndexKey } from "./sorted-keys.js";

/** A short fingerprint of `parts` (FNV-1a, 32 bits, as 8 hex digits). */
export function scopeOf(parts: readonly (string | number | undefined)[]): string {
  const text = JSON.stringify(parts.map((p) => p ?? null));
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
const base64url = (text: string) => base64Encode(utf8.encode(text), "url");

function encode(parts: readonly unknown[]): string {
  return base64url(JSON.stringify(parts));
}

function refused(operation: string, token: string, why: string): A2AError {
  const shown = token.length > 40 ? `${token.slice(0, 40)}…` : token;
  return new A2AError("InvalidParamsError", `${operation}: pageToken "${shown}" ${why}`);
}

/** The parts of `token` when it is a token of `kind` for `scope`; else throws InvalidParamsError. */
function decode(operation: string, token: string, kind: string, scope: string, length: number): unknown[] {
  let parts: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error("not base64url");
    const text = fromUtf8.decode(base64Decode(token));
    // Only the form this module writes: base64url decoding skips stray characters, so compare the re-encoding.
    if (base64url(text) !== token) throw new Error("not canonical");
    parts = JSON.parse(text);
  } catch {
    throw refused(operation, token, "is not a page token this server returned");
  }
  if (!Array.isArray(parts) || parts.length !== length || parts[0] !== kind) {
    throw refused(operation, token, "is not a page token this server returned");
  }
  if (parts[1] !== scope) throw refused(operation, token, "was returned for another tenant, task or filter");
  return parts;
}

export function encodeTaskToken(scope: string, key: IndexKey): string {
  return encode(["t", scope, key.micros, key.id]);
}

export function decodeTaskToken(operation: string, token: string, scope: string): IndexKey {
  const parts = decode(operation, token, "t", scope, 4);
  const [, , micros, id] = parts;
  if (typeof micros !== "number" || !Number.isSafeInteger(micros) || typeof id !== "string" || id.includes("\u0000")) {
    throw refused(operation, token, "is not a page token this server returned");
  }
  return { micros, id };
}

export function encodeConfigToken(scope: string, configId: string): string {
  return encode(["p", scope, configId]);
}

export function decodeConfigToken(operation: string, token: string, scope: string): string {
  const [, , id] = decode(operation, token, "p", scope, 3);
  if (typeof id !== "string" || id.includes("\u0000")) {
    throw refused(operation, token, "is not a page token this server returned");
  }
  return id;
}
