/**
 * The SQL names of one store: every table lives in one schema (default
 * "a2a"), so several stores (or test runs) share a database side by side.
 *
 *   schema   [a-z_][a-z0-9_]*, at most 40 characters: a plain identifier,
 *            quoted anyway; anything else is refused (naming the value)
 *   channel  the NOTIFY channel of the schema, "a2a_task_events:<schema>",
 *            under PostgreSQL's 63-byte identifier limit
 *   prepared a statement the store runs often is prepared once per
 *            connection, under a name taken from its text
 *            ("a2a_<what>_<sha-1 of the text, 20 hex digits>"): two stores on
 *            one pool, whatever their schemas, never give one name two texts
 */
import { createHash } from "node:crypto";

export const DEFAULT_SCHEMA = "a2a";

export interface SqlNames {
  readonly schema: string;
  /** The quoted schema, to prefix table names: `${q}.tasks`. */
  readonly q: string;
  /** The NOTIFY/LISTEN channel, unquoted. */
  readonly channel: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

export function sqlNames(schema: string = DEFAULT_SCHEMA): SqlNames {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `PostgreSQL task store: schema "${schema}" is not a plain lower-case identifier of at most 40 characters`,
    );
  }
  return { schema, q: `"${schema}"`, channel: `a2a_task_events:${schema}` };
}

/** A quoted SQL identifier (doubles inner quotes). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The prepared statement name of a SQL text (see the header). */
export function statementName(what: string, text: string): string {
  return `a2a_${what}_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
}
