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
 *            one pool, whatever their schemas, never give one name two texts.
 *            Each text's name is computed once per SqlNames (`statements`: a
 *            few dozen texts at most), and a text that depends on nothing but
 *            the store (a get, the event feed's reads) is made once: making
 *            and hashing it again on every get cost more than the rest of
 *            the call's SQL text handling
 */
import { createHash } from "node:crypto";

export const DEFAULT_SCHEMA = "a2a";

export interface SqlNames {
  readonly schema: string;
  /** The quoted schema, to prefix table names: `${q}.tasks`. */
  readonly q: string;
  /** The NOTIFY/LISTEN channel, unquoted. */
  readonly channel: string;
  /** The store's prepared statements (see the header). */
  readonly statements: Statements;
}

/** A prepared statement: its name and its SQL text. */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

/** The prepared statements of one SqlNames (see the header). */
export class Statements {
  private readonly names = new Map<string, string>();
  private readonly fixed = new Map<string, Prepared>();

  /** The prepared statement name of `text`, a `what` (commit, get, …). */
  name(what: string, text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `a2a_${what}_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
      this.names.set(text, name);
    }
    return name;
  }

  /** The statement `what` (get, events, …), whose text `make` gives the same every time: made the first time only. */
  once(what: string, make: () => string): Prepared {
    let made = this.fixed.get(what);
    if (made === undefined) {
      const text = make();
      made = { name: this.name(what, text), text };
      this.fixed.set(what, made);
    }
    return made;
  }
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

export function sqlNames(schema: string = DEFAULT_SCHEMA): SqlNames {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `PostgreSQL task store: schema "${schema}" is not a plain lower-case identifier of at most 40 characters`,
    );
  }
  return { schema, q: `"${schema}"`, channel: `a2a_task_events:${schema}`, statements: new Statements() };
}

/** A quoted SQL identifier (doubles inner quotes). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
