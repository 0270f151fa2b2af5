/**
 * Opaque page tokens of the store: base64url of a small JSON array whose first
 * item names the kind, and whose last is a fingerprint of the listing (tenant
 * and filters), so a token is refused by another kind, tenant or query.
 *
 *   tasks         ["t1", "<status time, µs since the epoch>", "<task id>", fp]
 *                 the position of the last task of the page in the listing's
 *                 order (status time descending, then id ascending)
 *   push configs  ["p1", "<config id>", fp]  the last config id of the page
 *
 *   fp            16 base64url characters of sha256(JSON of the scope)
 *
 * Anything else is A2AError InvalidParamsError naming pageToken, and so is a
 * token that has the form but names what the store never writes (the
 * fingerprint is no secret: a client can forge one): a status time outside
 * google.protobuf.Timestamp's range (years 1 to 9999), an id holding a NUL
 * character (../store-keys.ts). So nothing a client sends reaches SQL that
 * PostgreSQL would refuse.
 */
import { createHash } from "node:crypto";
import { A2AError } from "../../core/a2a-error.js";

export interface TaskCursor {
  /** Decimal microseconds since the epoch. */
  readonly statusMicros: string;
  readonly id: string;
}

/** What a token is bound to: e.g. [tenant, contextId, status, statusAfterMs]. */
export type TokenScope = readonly (string | number | null)[];

function fingerprint(scope: TokenScope): string {
  return createHash("sha256").update(JSON.stringify(scope)).digest("base64url").slice(0, 16);
}

function encode(items: readonly string[]): string {
  return Buffer.from(JSON.stringify(items), "utf8").toString("base64url");
}

function refusal(token: string, where: string, why: string): A2AError {
  return new A2AError("InvalidParamsError", `${where}: pageToken "${token.slice(0, 80)}" ${why}`);
}

function decode(token: string, kind: string, length: number, scope: TokenScope, where: string): readonly string[] {
  const refuse = () => refusal(token, where, "is not a page token of this store");
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw refuse();
  let items: unknown;
  try {
    items = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(items) || items.length !== length || items[0] !== kind) throw refuse();
  if (!items.every((item): item is string => typeof item === "string")) throw refuse();
  if (items[length - 1] !== fingerprint(scope)) {
    throw refusal(token, where, "was made for another tenant or query");
  }
  return items;
}

export function taskPageToken(cursor: TaskCursor, scope: TokenScope): string {
  return encode(["t1", cursor.statusMicros, cursor.id, fingerprint(scope)]);
}

/** undefined for "" (the first page). */
/** The microseconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z, Timestamp's range. */
const MIN_MICROS = -62_135_596_800_000_000n;
const MAX_MICROS = 253_402_300_799_999_999n;

export function readTaskPageToken(token: string, scope: TokenScope, where: string): TaskCursor | undefined {
  if (token === "") return undefined;
  const [, statusMicros = "", id = ""] = decode(token, "t1", 4, scope, where);
  if (!/^-?\d{1,19}$/.test(statusMicros)) throw refusal(token, where, "has no valid position");
  const micros = BigInt(statusMicros);
  if (micros < MIN_MICROS || micros > MAX_MICROS || id.includes("\u0000")) {
    throw refusal(token, where, "has no valid position");
  }
  return { statusMicros, id };
}

export function pushConfigPageToken(lastId: string, scope: TokenScope): string {
  return encode(["p1", lastId, fingerprint(scope)]);
}

/** undefined for "" (the first page); else the id after which the page starts. */
export function readPushConfigPageToken(token: string, scope: TokenScope, where: string): string | undefined {
  if (token === "") return undefined;
  const id = decode(token, "p1", 3, scope, where)[1] ?? "";
  if (id.includes("\u0000")) throw refusal(token, where, "has no valid position");
  return id;
}
