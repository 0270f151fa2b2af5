/**
 * Opaque page tokens of the store: base64url of a small JSON array whose first
 * item names the kind, so a token of one listing is refused by another.
 *
 *   tasks         ["t1", "<status time, microseconds since the epoch>", "<task id>"]
 *                 the position of the last task of the page in the listing's
 *                 order (status time descending, then id ascending)
 *   push configs  ["p1", "<config id>"]  the last config id of the page
 *
 * Anything else is A2AError InvalidParamsError naming pageToken.
 */
import { A2AError } from "../../a2a-error.js";

export interface TaskCursor {
  /** Decimal microseconds since the epoch. */
  readonly statusMicros: string;
  readonly id: string;
}

function encode(items: readonly string[]): string {
  return Buffer.from(JSON.stringify(items), "utf8").toString("base64url");
}

function decode(token: string, kind: string, length: number, where: string): readonly string[] {
  const refuse = () =>
    new A2AError(
      "InvalidParamsError",
      `${where}: pageToken "${token.slice(0, 80)}" is not a page token of this listing`,
    );
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw refuse();
  let items: unknown;
  try {
    items = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(items) || items.length !== length || items[0] !== kind) throw refuse();
  if (!items.every((item): item is string => typeof item === "string")) throw refuse();
  return items;
}

export function taskPageToken(cursor: TaskCursor): string {
  return encode(["t1", cursor.statusMicros, cursor.id]);
}

/** undefined for "" (the first page). */
export function readTaskPageToken(token: string, where: string): TaskCursor | undefined {
  if (token === "") return undefined;
  const [, statusMicros = "", id = ""] = decode(token, "t1", 3, where);
  if (!/^-?\d{1,19}$/.test(statusMicros)) {
    throw new A2AError("InvalidParamsError", `${where}: pageToken "${token.slice(0, 80)}" has no valid position`);
  }
  return { statusMicros, id };
}

export function pushConfigPageToken(lastId: string): string {
  return encode(["p1", lastId]);
}

/** undefined for "" (the first page); else the id after which the page starts. */
export function readPushConfigPageToken(token: string, where: string): string | undefined {
  if (token === "") return undefined;
  return decode(token, "p1", 2, where)[1];
}
