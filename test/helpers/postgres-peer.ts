/**
 * One instance of an agent's task store in its own node process, driven by
 * the test over IPC (child_process.fork): its own pg pool and PostgreSQL
 * TaskStore on DATABASE_URL / A2A_SCHEMA (turn leases of A2A_TASK_LEASE_MS
 * when set), so whatever the two processes share goes through PostgreSQL.
 * Built to dist-examples/ by `npm run build:examples`.
 *
 *   request  {n, op: "commit" | "get" | "list" | "subscribe" | "close", ...}
 *            values as ProtoJSON (toJson / fromJson of the v1.0 schemas)
 *   reply    {n, ok: result} or {n, error: message}
 *   event    {event: {taskId, version, json}} for each subscribed task event
 */
import { fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import pg from "pg";
import { createPostgresTaskStore } from "@protoc-gen-a2a/runtime/postgres";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { StreamResponseSchema, TaskSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

export type PeerRequest =
  | { n: number; op: "commit"; task: JsonValue; expectedVersion: number; events: JsonValue[]; startTurn?: string }
  | { n: number; op: "get"; id: string }
  | { n: number; op: "list"; contextId: string }
  | { n: number; op: "subscribe"; id: string }
  | { n: number; op: "close" };

export type PeerMessage =
  | { n: number; ok: JsonValue }
  | { n: number; error: string }
  | { event: { taskId: string; version: number; json: JsonValue } };

const TENANT = "peers";

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: 4 });
  const lease = process.env["A2A_TASK_LEASE_MS"];
  const store = createPostgresTaskStore({
    pool,
    definition: A2AServiceV1_0,
    schema: process.env["A2A_SCHEMA"] ?? "a2a",
    ...(lease ? { leaseMs: Number(lease) } : {}),
  });
  const send = (message: PeerMessage) => process.send?.(message);
  const handle = async (request: PeerRequest): Promise<JsonValue> => {
    switch (request.op) {
      case "commit": {
        const task = fromJson(TaskSchema, request.task);
        const events = request.events.map((e) => fromJson(StreamResponseSchema, e));
        const { expectedVersion, startTurn } = request;
        const version = await store.commit(TENANT, { task, expectedVersion, events, startTurn });
        return version ?? null;
      }
      case "get": {
        const stored = await store.get(TENANT, request.id);
        return stored === undefined ? null : { version: stored.version, task: toJson(TaskSchema, stored.task) };
      }
      case "list": {
        const q = { contextId: request.contextId, status: 0, statusAfterMs: undefined, pageSize: 100, pageToken: "" };
        const page = await store.list(TENANT, q);
        return { ids: page.tasks.map((t) => t.id), totalSize: page.totalSize, pid: process.pid };
      }
      case "subscribe":
        await store.subscribe(TENANT, request.id, (e) =>
          send({ event: { taskId: e.taskId, version: e.version, json: toJson(StreamResponseSchema, e.event) } }),
        );
        return true;
      case "close":
        await store.close();
        await pool.end();
        setImmediate(() => process.disconnect());
        return true;
    }
  };
  process.on("message", (request: PeerRequest) => {
    handle(request).then(
      (ok) => send({ n: request.n, ok }),
      (error: Error) => send({ n: request.n, error: error.message }),
    );
  });
  send({ n: 0, ok: process.pid });
}

void main();
