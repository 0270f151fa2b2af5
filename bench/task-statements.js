// SQL statements per send on the PostgreSQL TaskStore: how many round trips
// one blocking SendMessage costs (executor: working, one artifact, completed,
// awaited one by one, then made together with Promise.all), and one follow-up
// send to an input-required task. Counts every query a pg
// client of the process issues (pg.Client.prototype.query wrapped), by its
// first word, over SENDS sends after a warm-up, one send at a time, on a
// private cluster (test/helpers/postgres-cluster.js). Prints only.
//
// `node bench/task-statements.js`; needs `npm run build` and `npm run build:examples`.
import { create } from "@bufbuild/protobuf";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import { createTaskHandler, TaskState } from "@protoc-gen-a2a/runtime/task";
import pg from "pg";
import { A2AServiceV1_0 } from "../dist-examples/generated-samples/v1.0.1/a2a_a2a.js";
import { SendMessageRequestSchema } from "../dist-examples/generated-samples/v1.0.1/a2a_pb.js";
import { findPostgresBin, INSTALL_HINT, startPostgresCluster } from "../test/helpers/postgres-cluster.js";
import { benchContext } from "./call-context.js";
import { isMain } from "./stats.js";

const SENDS = 200;
const SCHEMA = "statements";

const counts = new Map();
let counting = false;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(...args) {
  if (counting) {
    const text = typeof args[0] === "string" ? args[0] : (args[0]?.text ?? "?");
    const word = text.trim().split(/\s+/)[0].toUpperCase();
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return query.apply(this, args);
};

const artifactOf = (text) => ({
  $typeName: "lf.a2a.v1.Artifact",
  artifactId: "a0",
  name: "",
  description: "",
  parts: [{ $typeName: "lf.a2a.v1.Part", content: { case: "text", value: text }, filename: "", mediaType: "" }],
  extensions: [],
});

const executor = {
  async execute(context, updater) {
    const text = context.message.parts[0]?.content.value;
    if (text === "input" && context.task === undefined) return updater.status(TaskState.INPUT_REQUIRED, "more?");
    if (text === "together") {
      await Promise.all([
        updater.status(TaskState.WORKING),
        updater.artifact(artifactOf(text)),
        updater.status(TaskState.COMPLETED),
      ]);
      return;
    }
    await updater.status(TaskState.WORKING);
    await updater.artifact(artifactOf(text));
    await updater.status(TaskState.COMPLETED);
  },
};

const callContext = benchContext;

const send = (handler, text, taskId = "") =>
  handler.sendMessage(
    create(SendMessageRequestSchema, {
      message: { messageId: crypto.randomUUID(), role: 1, taskId, parts: [{ content: { case: "text", value: text } }] },
    }),
    callContext(),
  );

/** Counts the statements of `n` runs of `op`; per run, by first word and in all. */
async function measure(n, op) {
  counts.clear();
  counting = true;
  for (let i = 0; i < n; i++) await op(i);
  counting = false;
  const per = Object.fromEntries([...counts].map(([word, c]) => [word, c / n]));
  return { total: [...counts.values()].reduce((a, b) => a + b, 0) / n, per };
}

export async function benchStatements() {
  const bin = findPostgresBin();
  if (bin === undefined) return { skipped: INSTALL_HINT };
  const cluster = await startPostgresCluster(bin, "a2a_statements");
  try {
    const pool = new pg.Pool({ connectionString: cluster.url, max: 8 });
    await migrate(pool, { schema: SCHEMA });
    const store = createPostgresTaskStore({ pool, definition: A2AServiceV1_0, schema: SCHEMA, recheckMs: 0 });
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor, store });
    for (let i = 0; i < 20; i++) await send(handler, "warm-up");
    const plain = await measure(SENDS, () => send(handler, "hello"));
    const together = await measure(SENDS, () => send(handler, "together"));
    const asks = [];
    for (let i = 0; i < SENDS; i++) asks.push((await send(handler, "input")).payload.value.id);
    const followUp = await measure(SENDS, (i) => send(handler, "answer", asks[i]));
    await store.close();
    await pool.end();
    return { plain, together, followUp };
  } finally {
    cluster.stop();
  }
}

export function formatStatements(r) {
  if (r.skipped !== undefined) return `[task-statements] skipped: ${r.skipped}`;
  const row = (x) =>
    `${x.total.toFixed(2)} (${Object.entries(x.per)
      .map(([w, c]) => `${w} ${c.toFixed(2)}`)
      .join(", ")})`;
  return (
    `[task-statements] per blocking send: new task ${row(r.plain)}; its calls made together ${row(r.together)}; ` +
    `follow-up ${row(r.followUp)}`
  );
}

if (isMain(import.meta.url)) console.log(formatStatements(await benchStatements()));
