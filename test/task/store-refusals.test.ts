/**
 * What the stores refuse, through real servers (HTTP+JSON and JSON-RPC, v1.0)
 * over createTaskHandler on the PostgreSQL store and on the memory store,
 * which must answer alike (packages/runtime/src/task/store-keys.ts,
 * store-refusals.ts, postgres/page-token.ts):
 *
 *   push configs  at most 100 per task (maxPushConfigsPerTask's default); the
 *                 next is InvalidParamsError naming the bound, replacing one
 *                 is still allowed, and a follow-up then pushes to 100 only
 *   NUL           a U+0000 in a tenant, id, taskId, contextId or push config
 *                 id is InvalidParamsError (HTTP 400) naming the field; so is
 *                 such a key longer than 512 UTF-8 bytes (a 4,000-character
 *                 contextId overflowed PostgreSQL's index rows: a 500)
 *   page tokens   garbage, and forged tokens that pass the form and the
 *                 fingerprint but hold a NUL id or a huge position, are
 *                 InvalidParamsError naming pageToken
 *
 * No call may reach the servers' onError (a 500). The answers of both stores
 * are compared: same error type, same field named.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { createPostgresTaskStore, migrate } from "@protoc-gen-a2a/runtime/postgres";
import {
  type AgentExecutor,
  createMemoryTaskStore,
  createTaskHandler,
  type PushDelivery,
  type PushSender,
  TaskState,
  type TaskStore,
} from "@protoc-gen-a2a/runtime/task";
import { scopeOf } from "../../packages/runtime/src/task/page-token.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { postgresUrl, uniqueSchema } from "../helpers/postgres.js";
import { startTaskServers, type TaskServers, type Way } from "./task-servers.js";

const NUL = "\u0000";
const WAYS: readonly Way[] = ["HTTP+JSON 1.0", "JSONRPC 1.0"];

const executor: AgentExecutor = {
  async execute(ctx, up) {
    if (!ctx.task) return up.status(TaskState.INPUT_REQUIRED, "more?");
    await up.status(TaskState.COMPLETED);
  },
};

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
const fingerprint = (scope: unknown[]) =>
  createHash("sha256").update(JSON.stringify(scope)).digest("base64url").slice(0, 16);

/** Page tokens in the form each store writes, with its fingerprint, naming what no store writes. */
function forged(kind: "memory" | "postgres", tenant: string, taskId: string) {
  if (kind === "memory") {
    const taskScope = scopeOf(["t", tenant, "", 0, undefined]);
    return {
      nulTask: b64(["t", taskScope, 1, `a${NUL}b`]),
      hugeTask: b64(["t", taskScope, 1e300, "a"]),
      nulConfig: b64(["p", scopeOf(["p", tenant, taskId]), `a${NUL}b`]),
    };
  }
  return {
    nulTask: b64(["t1", "1", `a${NUL}b`, fingerprint([tenant, "", 0, null])]),
    hugeTask: b64(["t1", "9999999999999999999", "a", fingerprint([tenant, "", 0, null])]),
    nulConfig: b64(["p1", `a${NUL}b`, fingerprint([tenant, taskId])]),
  };
}

/** The A2A error a call ends with, as {type, message}; a success or another error fails the test. */
async function refusal(call: Promise<unknown>): Promise<{ type: string; message: string }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof A2AError)) throw new Error(`expected an A2AError, got ${String(error)}`);
  return { type: error.type, message: error.message };
}

/** Every refusal of one client, by case: {type, field named}. */
async function refusals(c: A2AServiceClient, kind: "memory" | "postgres", tenant: string, taskId: string) {
  const url = "https://example.com/hook";
  const text = (t: string, more: { taskId?: string; contextId?: string } = {}) => ({
    message: {
      messageId: crypto.randomUUID(),
      role: Role.USER,
      parts: [{ content: { case: "text" as const, value: t } }],
      ...more,
    },
  });
  const tokens = forged(kind, tenant, taskId);
  const cases: Record<string, [() => Promise<unknown>, RegExp]> = {
    "GetTask id": [() => c.getTask({ id: `a${NUL}` }), /\bid holds a NUL/],
    "CancelTask id": [() => c.cancelTask({ id: `a${NUL}` }), /\bid holds a NUL/],
    "SendMessage message.taskId": [
      () => c.sendMessage(text("x", { taskId: `a${NUL}` })),
      /message\.taskId holds a NUL/,
    ],
    "SendMessage message.contextId": [
      () => c.sendMessage(text("x", { contextId: `c${NUL}` })),
      /message\.contextId holds/,
    ],
    "ListTasks contextId": [() => c.listTasks({ contextId: `c${NUL}` }), /contextId holds a NUL/],
    "config get id": [() => c.getTaskPushNotificationConfig({ taskId, id: `k${NUL}` }), /\bid holds a NUL/],
    // The push config's own check (a control character in an id) comes before the store's.
    "config create id": [
      () => c.createTaskPushNotificationConfig({ taskId, id: `k${NUL}`, url }),
      /\bid holds U\+0000, a control character/,
    ],
    "config delete taskId": [
      () => c.deleteTaskPushNotificationConfig({ taskId: `t${NUL}`, id: "k" }),
      /taskId holds a NUL/,
    ],
    "SendMessage long contextId": [
      () => c.sendMessage(text("x", { contextId: "c".repeat(4000) })),
      /message\.contextId is longer than 512 bytes/,
    ],
    "GetTask long id": [() => c.getTask({ id: "é".repeat(300) }), /\bid is longer than 512 bytes/],
    "config create long id": [
      () => c.createTaskPushNotificationConfig({ taskId, id: "k".repeat(600), url }),
      /\bid is longer than 512/,
    ],
    "ListTasks garbage token": [
      () => c.listTasks({ pageToken: Buffer.from("garbage!").toString("base64url") }),
      /pageToken/,
    ],
    "ListTasks NUL token": [() => c.listTasks({ pageToken: tokens.nulTask }), /pageToken/],
    "ListTasks huge token": [() => c.listTasks({ pageToken: tokens.hugeTask }), /pageToken/],
    "config list NUL token": [
      () => c.listTaskPushNotificationConfigs({ taskId, pageToken: tokens.nulConfig }),
      /pageToken/,
    ],
  };
  const out: Record<string, string> = {};
  for (const [name, [call, field]] of Object.entries(cases)) {
    const r = await refusal(call());
    expect({ name, type: r.type, named: field.test(r.message), message: r.message }).toMatchObject({
      name,
      type: "InvalidParamsError",
      named: true,
    });
    out[name] = `${r.type}: ${field.source}`;
  }
  return out;
}

const deliveries: PushDelivery[] = [];
const sender: PushSender = {
  async checkUrl() {},
  send: (d) => void deliveries.push(d),
  idle: async () => undefined,
};

let admin: pg.Pool;
let schema: string;
const servers: TaskServers[] = [];
const stores: TaskStore[] = [];

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: postgresUrl(), max: 2 });
  schema = uniqueSchema("refuse");
  await migrate(admin, { schema });
});

afterAll(async () => {
  for (const s of servers) await s.close();
  for (const s of stores) await s.close();
  await admin?.end();
});

async function serve(kind: "memory" | "postgres"): Promise<TaskServers> {
  const store =
    kind === "memory"
      ? createMemoryTaskStore()
      : createPostgresTaskStore({ pool: postgresUrl(), definition: A2AServiceV1_0, schema });
  stores.push(store);
  const made = await startTaskServers(
    createTaskHandler({ definition: A2AServiceV1_0, executor, store, push: { sender } }),
  );
  servers.push(made);
  return made;
}

describe("store refusals through real servers", () => {
  const answers: Record<string, Record<string, string>> = {};

  for (const kind of ["postgres", "memory"] as const) {
    for (const way of WAYS) {
      it(`${kind} over ${way}: 100 push configs per task; NUL or long keys and forged page tokens are InvalidParams`, async () => {
        const s = await serve(kind);
        const tenant = `t-${crypto.randomUUID()}`;
        const c = s.client(way, tenant);
        const asked = await c.sendMessage({
          message: {
            messageId: crypto.randomUUID(),
            role: Role.USER,
            parts: [{ content: { case: "text", value: "hi" } }],
          },
        });
        if (asked.payload.case !== "task") throw new Error("expected a task");
        const taskId = asked.payload.value.id;
        const url = "https://example.com/hook";
        for (let i = 0; i < 100; i++) await c.createTaskPushNotificationConfig({ taskId, id: `cfg-${i}`, url });
        const over = await refusal(c.createTaskPushNotificationConfig({ taskId, id: "cfg-100", url }));
        expect(over.type).toBe("InvalidParamsError");
        expect(over.message).toContain(`push config cfg-100: task ${taskId} already has 100 push configs`);
        expect(over.message).toContain("maxPushConfigsPerTask 100");
        expect((await c.createTaskPushNotificationConfig({ taskId, id: "cfg-7", url: `${url}/7` })).url).toBe(
          `${url}/7`,
        );
        const missing = await refusal(c.createTaskPushNotificationConfig({ taskId: "no-such-task", id: "k", url }));
        expect(missing.type).toBe("TaskNotFoundError");
        const pushed = deliveries.length;
        await c.sendMessage({
          message: {
            messageId: crypto.randomUUID(),
            role: Role.USER,
            taskId,
            parts: [{ content: { case: "text", value: "go" } }],
          },
        });
        const pushedTo = () =>
          new Set(
            deliveries
              .slice(pushed)
              .filter((d) => d.config.taskId === taskId)
              .map((d) => d.config.id),
          );
        await vi.waitFor(() => expect(pushedTo().size).toBeGreaterThanOrEqual(100), { timeout: 30_000, interval: 20 });
        expect(pushedTo().size).toBe(100);
        answers[`${kind} ${way}`] = await refusals(c, kind, tenant, taskId);
        const nulTenant = await refusal(s.client(way, `te${NUL}n`).getTask({ id: "x" }));
        expect(nulTenant.type).toBe("InvalidParamsError");
        expect(nulTenant.message).toMatch(/tenant holds a NUL/);
        expect(s.serverErrors).toEqual([]);
      });
    }
  }

  it("the memory store answers as the PostgreSQL store does", () => {
    for (const way of WAYS) expect(answers[`memory ${way}`]).toEqual(answers[`postgres ${way}`]);
  });

  it("answers HTTP 400 for a NUL in a task id on HTTP+JSON, on both stores", async () => {
    for (const kind of ["postgres", "memory"] as const) {
      const s = await serve(kind);
      const res = await fetch(`${s.httpBase}/rest/tasks/a%00b`, { headers: { "A2A-Version": "1.0" } });
      const body = (await res.json()) as { error?: { message?: string } };
      expect({ kind, status: res.status, message: body.error?.message }).toMatchObject({ kind, status: 400 });
      expect(body.error?.message).toMatch(/GetTask: id holds a NUL/);
      expect(s.serverErrors).toEqual([]);
    }
  });
});
