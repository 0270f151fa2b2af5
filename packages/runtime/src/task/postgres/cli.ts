#!/usr/bin/env node
/**
 * a2a-task-store: the PostgreSQL task store's command line.
 *
 *   a2a-task-store migrate [--database-url URL] [--schema NAME]
 *   a2a-task-store prune   [--database-url URL] [--schema NAME] [--older-than SECONDS]
 *                          [--terminal-older-than SECONDS] [--interrupted-older-than SECONDS]
 *
 * prune deletes events older than --older-than (default 3600), terminal
 * tasks whose status time and last commit are older than
 * --terminal-older-than (default 604800, seven days; "never" keeps them) and
 * input-required or auth-required tasks whose status time and last commit
 * are older than --interrupted-older-than (the same default), each no sooner
 * than --older-than (prune.ts).
 * The URL defaults to $DATABASE_URL; the schema to "a2a". Prints what it did;
 * exits 1 with the reason on failure, 2 on a usage error.
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { migrate } from "./migrations.js";
import {
  DEFAULT_EVENTS_TTL_MS,
  DEFAULT_INTERRUPTED_TTL_MS,
  DEFAULT_TERMINAL_TTL_MS,
  MAX_TTL_MS,
  prune,
} from "./prune.js";
import { DEFAULT_SCHEMA } from "./sql-names.js";

const USAGE = `usage: a2a-task-store migrate [--database-url URL] [--schema NAME]
       a2a-task-store prune   [--database-url URL] [--schema NAME] [--older-than SECONDS]
                              [--terminal-older-than SECONDS|never] [--interrupted-older-than SECONDS|never]
A task goes no sooner than its events (--older-than). The database URL defaults to
$DATABASE_URL, the schema to "${DEFAULT_SCHEMA}".`;

class UsageError extends Error {}

function parse(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      "database-url": { type: "string" },
      schema: { type: "string" },
      "older-than": { type: "string" },
      "terminal-older-than": { type: "string" },
      "interrupted-older-than": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals[0];
  if (values.help === true) return undefined;
  if (positionals.length !== 1 || (command !== "migrate" && command !== "prune")) {
    throw new UsageError(`a2a-task-store: expected one command, migrate or prune; got "${positionals.join(" ")}"`);
  }
  const url = values["database-url"] ?? process.env.DATABASE_URL;
  if (url === undefined || url === "") throw new UsageError("a2a-task-store: no --database-url and no DATABASE_URL");
  const olderThan = seconds("--older-than", values["older-than"], DEFAULT_EVENTS_TTL_MS, false);
  const terminal = seconds("--terminal-older-than", values["terminal-older-than"], DEFAULT_TERMINAL_TTL_MS, true);
  const interrupted = seconds(
    "--interrupted-older-than",
    values["interrupted-older-than"],
    DEFAULT_INTERRUPTED_TTL_MS,
    true,
  );
  const schema = values.schema ?? DEFAULT_SCHEMA;
  return {
    command,
    url,
    schema,
    olderThanMs: olderThan * 1000,
    terminalTtlMs: terminal * 1000,
    interruptedTtlMs: interrupted * 1000,
  };
}

/**
 * A TTL flag's seconds: its default (given in ms) when absent; digits, with a fraction, up to MAX_TTL_MS; with
 * `never`, Infinity for "never". Anything else is a UsageError naming the flag.
 */
function seconds(flag: string, value: string | undefined, defaultMs: number, never: boolean): number {
  if (value === undefined) return defaultMs / 1000;
  if (never && value === "never") return Number.POSITIVE_INFINITY;
  const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (n * 1000 <= MAX_TTL_MS) return n;
  const what = `a number of seconds up to ${MAX_TTL_MS / 1000}${never ? " or never" : ""}`;
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  throw new UsageError(`a2a-task-store: ${flag} "${shown}" is not ${what}`);
}

async function main(argv: readonly string[]): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args === undefined) {
    console.log(USAGE);
    return 0;
  }
  const client = new pg.Client({ connectionString: args.url });
  // A connection that dies fails the statement under way (reported below); unheard, its 'error' event would end
  // the process with a stack trace instead.
  client.on("error", () => {});
  try {
    await client.connect();
    if (args.command === "migrate") {
      const result = await migrate(client, { schema: args.schema });
      const what = result.applied.length === 0 ? "already up to date" : `applied ${result.applied.join(", ")}`;
      console.log(`a2a-task-store: schema "${args.schema}" at version ${result.version} (${what})`);
    } else {
      const { schema, olderThanMs, terminalTtlMs, interruptedTtlMs } = args;
      const deleted = await prune(client, { schema, eventsTtlMs: olderThanMs, terminalTtlMs, interruptedTtlMs });
      console.log(
        `a2a-task-store: deleted ${deleted.events} task events and ${deleted.tasks} tasks (terminal or ` +
          `unanswered) from schema "${args.schema}"`,
      );
    }
    return 0;
  } catch (error) {
    console.error(`a2a-task-store ${args.command}: ${(error as Error).message}`);
    return 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

process.exitCode = await main(process.argv.slice(2));
