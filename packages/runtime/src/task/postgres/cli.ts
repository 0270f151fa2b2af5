#!/usr/bin/env node
/**
 * a2a-task-store: the PostgreSQL task store's command line.
 *
 *   a2a-task-store migrate [--database-url URL] [--schema NAME]
 *   a2a-task-store prune   [--database-url URL] [--schema NAME] [--older-than SECONDS]
 *
 * The URL defaults to $DATABASE_URL; the schema to "a2a". Prints what it did;
 * exits 1 with the reason on failure, 2 on a usage error.
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { migrate } from "./migrations.js";
import { pruneEvents } from "./prune.js";
import { DEFAULT_SCHEMA } from "./sql-names.js";

const USAGE = `usage: a2a-task-store migrate [--database-url URL] [--schema NAME]
       a2a-task-store prune   [--database-url URL] [--schema NAME] [--older-than SECONDS]
The database URL defaults to $DATABASE_URL, the schema to "${DEFAULT_SCHEMA}".`;

class UsageError extends Error {}

function parse(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      "database-url": { type: "string" },
      schema: { type: "string" },
      "older-than": { type: "string" },
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
  const olderThan = values["older-than"] === undefined ? 3600 : Number(values["older-than"]);
  if (!Number.isFinite(olderThan) || olderThan < 0) {
    throw new UsageError(`a2a-task-store: --older-than "${values["older-than"]}" is not a number of seconds`);
  }
  return { command, url, schema: values.schema ?? DEFAULT_SCHEMA, olderThanMs: olderThan * 1000 };
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
  try {
    await client.connect();
    if (args.command === "migrate") {
      const result = await migrate(client, { schema: args.schema });
      const what = result.applied.length === 0 ? "already up to date" : `applied ${result.applied.join(", ")}`;
      console.log(`a2a-task-store: schema "${args.schema}" at version ${result.version} (${what})`);
    } else {
      const deleted = await pruneEvents(client, { schema: args.schema, olderThanMs: args.olderThanMs });
      console.log(`a2a-task-store: deleted ${deleted} task events from schema "${args.schema}"`);
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
