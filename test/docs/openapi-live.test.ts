/**
 * The OpenAPI documents (generated-samples/<version>/a2a_openapi.yaml) against the running example agent, which
 * serves A2A 1.0 and (through the version bridge) 0.3 at the same URLs: every REST operation of each version is
 * called, success and error cases, the `/{tenant}` twins and the SSE streams, and each exchange is checked by
 * openapi-live.ts (operation by method and template, parameters declared, request body, response object by
 * status, A2A response headers declared, content type, body or each event's data against the schemas, which are
 * also checked closed, error bodies against the response's catalog).
 * The last case of each version compares the operations called with the document's, so a new route cannot go
 * unchecked. A case that fails because the document is wrong is marked `it.fails` in DEFECTS with the defect.
 */
import { apiKeySecurity } from "../helpers/example-process.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import { WAIT_TEXT } from "../../examples/echo-agent/echo-handler.js";
import { at, isObject, object } from "../helpers/doc-schemas.js";
import { openApiLive, type OpenApiLive, type RestCall, type RestReply } from "../helpers/openapi-live.js";
import { repoRoot } from "../helpers/run.js";

const TENANT = "acme";
const HOOK = "http://127.0.0.1:9/hook"; // never called: configs are set on finished tasks only
/** Cases that fail because the document is wrong, with the defect (none known). */
const DEFECTS: Readonly<Record<string, string>> = {};

/** The agents require an API key (so they declare the extended card, which needs a caller); calls send it. */
const KEY = { "x-api-key": "docs-key" };
const CREDENTIALS = { credentialHeaders: ["x-api-key"] };
const security = () => apiKeySecurity({ docs: "docs-key" });

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startEchoAgent({ security: security() });
});
afterAll(() => agent?.close());

const documentOf = (v: string): unknown =>
  parseYaml(readFileSync(join(repoRoot, `generated-samples/${v}/a2a_openapi.yaml`), "utf8"));

/** Calls `c` and expects the status and no disagreement with the document. */
async function expectCall(live: OpenApiLive, c: RestCall, status: number): Promise<RestReply> {
  const reply = await live.call(c);
  expect(reply.problems).toEqual([]);
  expect(reply.status, JSON.stringify(reply.json)).toBe(status);
  return reply;
}

/** A field of a JSON reply, read along `keys` (an index for an array). */
function field(json: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>(
    (node, k) => (Array.isArray(node) ? node[Number(k)] : isObject(node) ? node[k] : undefined),
    json,
  );
}

type Case = readonly [name: string, run: () => Promise<void>];

function defineCases(version: string, live: () => OpenApiLive, cases: readonly Case[]) {
  describe(`${version} HTTP+JSON against a2a_openapi.yaml`, () => {
    for (const [name, run] of cases) {
      const defect = DEFECTS[`${version} ${name}`];
      (defect ? it.fails : it)(defect ? `${name} (document defect: ${defect})` : name, run);
    }
    it("called every operation of the document", () => {
      expect([...live().called].sort()).toEqual([...live().operationIds].sort());
    });
  });
}

// --- v1.0.1 -----------------------------------------------------------------------------------------------

const EXTENSION = "urn:example:required";
const options10 = () => ({
  base: agent.urls.rest,
  headers: { "content-type": "application/a2a+json", ...KEY },
  id: "v1.0.1",
  ...CREDENTIALS,
});
/** Runs `check` against a second agent that requires EXTENSION (its card says so), closed afterwards. */
async function withStrictAgent(check: (live: OpenApiLive) => Promise<void>) {
  const strict = await startEchoAgent({ requiredExtensions: [EXTENSION], security: security() });
  try {
    await check(openApiLive(documentOf("v1.0.1"), { ...options10(), base: strict.urls.rest }));
  } finally {
    await strict.close();
  }
}
let live10: OpenApiLive;
beforeAll(() => {
  live10 = openApiLive(documentOf("v1.0.1"), options10());
});

const V10 = { "A2A-Version": "1.0" };
const call10 = (c: RestCall, status: number) => expectCall(live10, { ...c, headers: { ...V10, ...c.headers } }, status);
const message10 = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });
const tenantOf = (tenant?: string) => (tenant ? { tenant } : {});
const at10 = (template: string, tenant?: string) => (tenant ? `/{tenant}${template}` : template);

/** A task made by SendMessage (checked too): echoed and completed, or (WAIT_TEXT) left working. */
async function task10(text: string, tenant?: string): Promise<string> {
  const body = {
    message: message10(text),
    ...(text === WAIT_TEXT ? { configuration: { returnImmediately: true } } : {}),
  };
  const reply = await call10(
    { method: "POST", template: at10("/message:send", tenant), path: tenantOf(tenant), body },
    200,
  );
  return String(field(reply.json, "task", "id"));
}

/** Subscribes to a working task, cancels it once the first event is in, and expects the stream to end. */
async function subscribe10(method: "GET" | "POST", tenant?: string) {
  const id = await task10(WAIT_TEXT, tenant);
  const path = { id, ...tenantOf(tenant) };
  const cancel = async () => {
    await call10({ method: "POST", template: at10("/tasks/{id}:cancel", tenant), path, body: {} }, 200);
  };
  const c: RestCall = { method, template: at10("/tasks/{id}:subscribe", tenant), path, afterFirstEvent: cancel };
  const reply = await call10(method === "POST" ? { ...c, body: {} } : c, 200);
  expect(field(reply.json, "0", "task", "id")).toBe(id);
  expect(field((reply.json as unknown[]).at(-1), "statusUpdate", "status", "state")).toBe("TASK_STATE_CANCELED");
}

/** Create, list, get and delete a push config of a finished task. */
async function pushConfigs10(tenant?: string) {
  const taskId = await task10("push", tenant);
  const base = at10("/tasks/{taskId}/pushNotificationConfigs", tenant);
  const path = { taskId, ...tenantOf(tenant) };
  await call10({ method: "POST", template: base, path, body: { id: "c1", url: HOOK } }, 200);
  const list = await call10({ method: "GET", template: base, path, query: { pageSize: "10" } }, 200);
  expect(field(list.json, "configs", "0", "id")).toBe("c1");
  const one = { ...path, id: "c1" };
  const got = await call10({ method: "GET", template: `${base}/{id}`, path: one }, 200);
  expect(field(got.json, "url")).toBe(HOOK);
  await call10({ method: "DELETE", template: `${base}/{id}`, path: one }, 200);
}

const cases10: Case[] = [
  [
    "SendMessage: a text is echoed and the task completes",
    async () => {
      const reply = await call10(
        { method: "POST", template: "/message:send", body: { message: message10("hi") } },
        200,
      );
      expect(field(reply.json, "task", "status", "state")).toBe("TASK_STATE_COMPLETED");
    },
  ],
  [
    "SendMessage: the version in the A2A-Version query parameter",
    async () => {
      const c: RestCall = { method: "POST", template: "/message:send", query: V10, body: { message: message10("q") } };
      await expectCall(live10, c, 200);
    },
  ],
  [
    "SendMessage: a message without a role is InvalidParams (400)",
    async () => {
      const body = { message: { messageId: "m", parts: [{ text: "x" }] } };
      await call10({ method: "POST", template: "/message:send", body, offDocument: true }, 400);
    },
  ],
  [
    "SendMessage: A2A-Version 9.9 is VersionNotSupported (400)",
    async () => {
      const c: RestCall = { method: "POST", template: "/message:send", headers: { "A2A-Version": "9.9" } };
      const reply = await call10({ ...c, body: { message: message10("v") } }, 400);
      expect(field(reply.json, "error", "details", "0", "reason")).toBe("VERSION_NOT_SUPPORTED");
    },
  ],
  ["SendMessage_tenant", async () => void (await task10("hi", TENANT))],
  [
    "SendMessage: a body that is not JSON is refused (400)",
    async () => void (await call10({ method: "POST", template: "/message:send", rawBody: "{not json" }, 400)),
  ],
  [
    "SendMessage: a Content-Type the binding does not take is refused (400)",
    async () => {
      const c: RestCall = { method: "POST", template: "/message:send", headers: { "content-type": "text/plain" } };
      await call10({ ...c, rawBody: JSON.stringify({ message: message10("t") }) }, 400);
    },
  ],
  [
    "an agent requiring an extension: ExtensionSupportRequired (400) without A2A-Extensions",
    () =>
      withStrictAgent(async (live) => {
        const refused = await expectCall(live, { method: "GET", template: "/extendedAgentCard", headers: V10 }, 400);
        expect(field(refused.json, "error", "details", "0", "reason")).toBe("EXTENSION_SUPPORT_REQUIRED");
      }),
  ],
  [
    "an agent requiring an extension: GetExtendedAgentCard with it declared, activated in the answer",
    () =>
      withStrictAgent(async (live) => {
        const headers = { ...V10, "A2A-Extensions": EXTENSION };
        const reply = await expectCall(live, { method: "GET", template: "/extendedAgentCard", headers }, 200);
        expect(reply.headers["a2a-extensions"]).toBe(EXTENSION);
      }),
  ],
  [
    "an agent requiring an extension: GetTask with it declared, an unknown id (404)",
    () =>
      withStrictAgent(async (live) => {
        const c: RestCall = { method: "GET", template: "/tasks/{id}", path: { id: "unknown" } };
        await expectCall(live, { ...c, headers: { ...V10, "A2A-Extensions": EXTENSION } }, 404);
      }),
  ],
  [
    "SendMessage: the tenant in the body, then GetTask_tenant finds the task",
    async () => {
      const body = { tenant: TENANT, message: message10("body tenant") };
      const sent = await call10({ method: "POST", template: "/message:send", body }, 200);
      const id = String(field(sent.json, "task", "id"));
      await call10({ method: "GET", template: "/{tenant}/tasks/{id}", path: { tenant: TENANT, id } }, 200);
    },
  ],
  ...[undefined, TENANT].map(
    (tenant): Case => [
      `SendStreamingMessage${tenant ? "_tenant" : ""}: events up to the completed status`,
      async () => {
        const c: RestCall = { method: "POST", template: at10("/message:stream", tenant), path: tenantOf(tenant) };
        const reply = await call10({ ...c, body: { message: message10("streamed") } }, 200);
        const last = (reply.json as unknown[]).at(-1);
        expect(field(last, "statusUpdate", "status", "state")).toBe("TASK_STATE_COMPLETED");
      },
    ],
  ),
  [
    "SendStreamingMessage: an empty message is InvalidParams (400, not a stream)",
    async () => {
      const reply = await call10({ method: "POST", template: "/message:stream", body: {}, offDocument: true }, 400);
      expect(reply.events).toEqual([]);
    },
  ],
  ...[undefined, TENANT].map(
    (tenant): Case => [
      `GetTask${tenant ? "_tenant" : ""}: the task, with historyLength`,
      async () => {
        const id = await task10("get", tenant);
        const c: RestCall = { method: "GET", template: at10("/tasks/{id}", tenant), path: { id, ...tenantOf(tenant) } };
        const reply = await call10({ ...c, query: { historyLength: "1" } }, 200);
        expect(field(reply.json, "id")).toBe(id);
      },
    ],
  ),
  [
    "GetTask: the tenant as the `tenant` query parameter",
    async () => {
      const id = await task10("query tenant", TENANT);
      await call10({ method: "GET", template: "/tasks/{id}", path: { id }, query: { tenant: TENANT } }, 200);
    },
  ],
  [
    "GetTask: an unknown id is TaskNotFound (404)",
    async () => {
      const reply = await call10({ method: "GET", template: "/tasks/{id}", path: { id: "unknown" } }, 404);
      expect(field(reply.json, "error", "details", "0", "reason")).toBe("TASK_NOT_FOUND");
    },
  ],
  [
    "GetTask: a task of another tenant is TaskNotFound (404)",
    async () => {
      const id = await task10("mine");
      await call10({ method: "GET", template: "/{tenant}/tasks/{id}", path: { id, tenant: TENANT } }, 404);
    },
  ],
  ...[undefined, TENANT].map(
    (tenant): Case => [
      `ListTasks${tenant ? "_tenant" : ""}: a page of tasks`,
      async () => {
        const id = await task10("listed", tenant);
        const c: RestCall = { method: "GET", template: at10("/tasks", tenant), path: tenantOf(tenant) };
        const reply = await call10({ ...c, query: { pageSize: "100", includeArtifacts: "true" } }, 200);
        expect((field(reply.json, "tasks") as unknown[]).map((t) => field(t, "id"))).toContain(id);
      },
    ],
  ),
  [
    "ListTasks: pageSize -1 is InvalidParams (400)",
    async () => void (await call10({ method: "GET", template: "/tasks", query: { pageSize: "-1" } }, 400)),
  ],
  ...[undefined, TENANT].map(
    (tenant): Case => [
      `CancelTask${tenant ? "_tenant" : ""}: a working task is canceled`,
      async () => {
        const id = await task10(WAIT_TEXT, tenant);
        const path = { id, ...tenantOf(tenant) };
        const reply = await call10(
          { method: "POST", template: at10("/tasks/{id}:cancel", tenant), path, body: {} },
          200,
        );
        expect(field(reply.json, "status", "state")).toBe("TASK_STATE_CANCELED");
      },
    ],
  ),
  [
    "CancelTask: a completed task is TaskNotCancelable (400)",
    async () => {
      const id = await task10("done");
      const reply = await call10({ method: "POST", template: "/tasks/{id}:cancel", path: { id }, body: {} }, 400);
      expect(field(reply.json, "error", "details", "0", "reason")).toBe("TASK_NOT_CANCELABLE");
    },
  ],
  [
    "CancelTask: an unknown id is TaskNotFound (404)",
    async () =>
      void (await call10({ method: "POST", template: "/tasks/{id}:cancel", path: { id: "unknown" }, body: {} }, 404)),
  ],
  ["SubscribeToTask: events until the task is canceled", () => subscribe10("GET")],
  ["SubscribeToTask_post", () => subscribe10("POST")],
  ["SubscribeToTask_tenant", () => subscribe10("GET", TENANT)],
  ["SubscribeToTask_post_tenant", () => subscribe10("POST", TENANT)],
  [
    "SubscribeToTask: a finished task is UnsupportedOperation (400, not a stream)",
    async () => {
      const id = await task10("finished");
      const reply = await call10({ method: "GET", template: "/tasks/{id}:subscribe", path: { id } }, 400);
      expect(field(reply.json, "error", "details", "0", "reason")).toBe("UNSUPPORTED_OPERATION");
    },
  ],
  ["Create, List, Get and DeleteTaskPushNotificationConfig(s)", () => pushConfigs10()],
  ["the same on the tenant routes", () => pushConfigs10(TENANT)],
  [
    "CreateTaskPushNotificationConfig: an unknown task is TaskNotFound (404)",
    async () => {
      const c: RestCall = {
        method: "POST",
        template: "/tasks/{taskId}/pushNotificationConfigs",
        path: { taskId: "no" },
      };
      await call10({ ...c, body: { url: HOOK } }, 404);
    },
  ],
  [
    "GetTaskPushNotificationConfig: an unknown config of a known task",
    async () => {
      const taskId = await task10("no config");
      const c: RestCall = {
        method: "GET",
        template: "/tasks/{taskId}/pushNotificationConfigs/{id}",
        path: { taskId, id: "x" },
      };
      await call10(c, 404);
    },
  ],
  ...[undefined, TENANT].map(
    (tenant): Case => [
      `GetExtendedAgentCard${tenant ? "_tenant" : ""}`,
      async () => {
        const c: RestCall = { method: "GET", template: at10("/extendedAgentCard", tenant), path: tenantOf(tenant) };
        expect(field((await call10(c, 200)).json, "name")).toBe("Echo agent");
      },
    ],
  ),
];

defineCases("v1.0.1", () => live10, cases10);

// --- v0.3.0 (no A2A-Version header: the bridge) -------------------------------------------------------------

let live03: OpenApiLive;
beforeAll(() => {
  live03 = openApiLive(documentOf("v0.3.0"), {
    base: agent.urls.rest,
    headers: { "content-type": "application/json", ...KEY },
    id: "v0.3.0",
    ...CREDENTIALS,
  });
});

const call03 = (c: RestCall, status: number) => expectCall(live03, c, status);
const message03 = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", content: [{ text }] });

async function task03(text: string): Promise<string> {
  const body = { message: message03(text), ...(text === WAIT_TEXT ? { configuration: { blocking: false } } : {}) };
  const reply = await call03({ method: "POST", template: "/v1/message:send", body }, 200);
  return String(field(reply.json, "task", "id"));
}

async function subscribe03(method: "GET" | "POST") {
  const id = await task03(WAIT_TEXT);
  const cancel = async () => {
    await call03({ method: "POST", template: "/v1/tasks/{id}:cancel", path: { id }, body: {} }, 200);
  };
  const c: RestCall = { method, template: "/v1/tasks/{id}:subscribe", path: { id }, afterFirstEvent: cancel };
  const reply = await call03(method === "POST" ? { ...c, body: {} } : c, 200);
  expect(field((reply.json as unknown[]).at(-1), "statusUpdate", "status", "state")).toBe("TASK_STATE_CANCELLED");
}

/** Create (at `template`), list, get and delete a push config of a finished task. */
async function pushConfigs03(template: string) {
  const id = await task03("push");
  const config = { name: `tasks/${id}/pushNotificationConfigs/c1`, pushNotificationConfig: { id: "c1", url: HOOK } };
  await call03({ method: "POST", template, path: { id }, body: config }, 200);
  const list = await call03({ method: "GET", template: "/v1/tasks/{id}/pushNotificationConfigs", path: { id } }, 200);
  expect(field(list.json, "configs", "0", "pushNotificationConfig", "id")).toBe("c1");
  const one: RestCall = {
    method: "GET",
    template: "/v1/tasks/{id}/pushNotificationConfigs/{configId}",
    path: { id, configId: "c1" },
  };
  expect(field((await call03(one, 200)).json, "pushNotificationConfig", "url")).toBe(HOOK);
  await call03({ ...one, method: "DELETE" }, 200);
}

const cases03: Case[] = [
  [
    "SendMessage: a text is echoed and the task completes",
    async () => {
      const reply = await call03(
        { method: "POST", template: "/v1/message:send", body: { message: message03("hi") } },
        200,
      );
      expect(field(reply.json, "task", "status", "state")).toBe("TASK_STATE_COMPLETED");
    },
  ],
  [
    "SendMessage: a message without a role is InvalidParams (400)",
    async () => {
      const body = { message: { messageId: "m", content: [{ text: "x" }] } };
      await call03({ method: "POST", template: "/v1/message:send", body, offDocument: true }, 400);
    },
  ],
  [
    "SendMessage: a body that is not JSON is refused (400)",
    async () => void (await call03({ method: "POST", template: "/v1/message:send", rawBody: "{not json" }, 400)),
  ],
  [
    "SendMessage: a Content-Type the binding does not take is refused (400)",
    async () => {
      const c: RestCall = { method: "POST", template: "/v1/message:send", headers: { "content-type": "text/plain" } };
      await call03({ ...c, rawBody: JSON.stringify({ message: message03("t") }) }, 400);
    },
  ],
  [
    "SendStreamingMessage: events up to the completed status",
    async () => {
      const reply = await call03(
        { method: "POST", template: "/v1/message:stream", body: { message: message03("s") } },
        200,
      );
      expect(field((reply.json as unknown[]).at(-1), "statusUpdate", "status", "state")).toBe("TASK_STATE_COMPLETED");
    },
  ],
  [
    "GetTask: the task, with historyLength",
    async () => {
      const id = await task03("get");
      const reply = await call03(
        { method: "GET", template: "/v1/tasks/{id}", path: { id }, query: { historyLength: "1" } },
        200,
      );
      expect(field(reply.json, "id")).toBe(id);
    },
  ],
  [
    "GetTask: an unknown id is TaskNotFound (404)",
    async () => {
      const reply = await call03({ method: "GET", template: "/v1/tasks/{id}", path: { id: "unknown" } }, 404);
      expect(field(reply.json, "code")).toBe(-32001);
    },
  ],
  [
    "CancelTask: a working task is canceled",
    async () => {
      const id = await task03(WAIT_TEXT);
      const reply = await call03({ method: "POST", template: "/v1/tasks/{id}:cancel", path: { id }, body: {} }, 200);
      expect(field(reply.json, "status", "state")).toBe("TASK_STATE_CANCELLED");
    },
  ],
  [
    "CancelTask: a completed task is TaskNotCancelable (400)",
    async () => {
      const id = await task03("done");
      const reply = await call03({ method: "POST", template: "/v1/tasks/{id}:cancel", path: { id }, body: {} }, 400);
      expect(field(reply.json, "code")).toBe(-32002);
    },
  ],
  ["TaskSubscription: events until the task is canceled", () => subscribe03("GET")],
  ["TaskSubscription_post", () => subscribe03("POST")],
  [
    "CreateTaskPushNotificationConfig (the proto's route), List, Get, Delete",
    () => pushConfigs03("/v1/task/{id}/pushNotificationConfigs"),
  ],
  [
    "CreateTaskPushNotificationConfig_alias (the specification's route)",
    () => pushConfigs03("/v1/tasks/{id}/pushNotificationConfigs"),
  ],
  [
    "GetTaskPushNotificationConfig: an unknown task is TaskNotFound (404)",
    async () => {
      const path = { id: "unknown", configId: "c1" };
      await call03({ method: "GET", template: "/v1/tasks/{id}/pushNotificationConfigs/{configId}", path }, 404);
    },
  ],
  [
    "GetAgentCard",
    async () =>
      expect(field((await call03({ method: "GET", template: "/v1/card" }, 200)).json, "name")).toBe("Echo agent"),
  ],
];

defineCases("v0.3.0", () => live03, cases03);

// --- the checks can fail ------------------------------------------------------------------------------------

/** The v1.0.1 document with the object at `tokens` changed by `change` (a fresh copy per call). */
function changed(tokens: readonly string[], change: (node: Record<string, unknown>) => void): unknown {
  const doc = documentOf("v1.0.1");
  change(object(at(doc, tokens), tokens.join("/")) as Record<string, unknown>);
  return doc;
}

describe("openapi-live reports a document that disagrees with the agent", () => {
  const problemsWith = async (doc: unknown, c: RestCall) => {
    const live = openApiLive(doc, {
      base: agent.urls.rest,
      headers: { "content-type": "application/a2a+json", ...KEY },
      id: "x",
      ...CREDENTIALS,
    });
    return (await live.call({ ...c, headers: { ...V10, ...c.headers } })).problems.join("\n");
  };
  const getTask = async (c: Partial<RestCall> = {}): Promise<RestCall> => ({
    method: "GET",
    template: "/tasks/{id}",
    path: { id: await task10("mutant") },
    ...c,
  });

  it("a field the agent sends and the schema does not name (closed check)", async () => {
    const doc = changed(["components", "schemas", "Task", "properties"], (p) => delete p["history"]);
    expect(await problemsWith(doc, await getTask())).toMatch(/closed: .* at \/ must NOT have unevaluated properties/);
  });
  it("an error the response object's catalog (x-a2a-errors) does not list", async () => {
    const doc = changed(["components", "responses", "Error404"], (r) => Object.assign(r, { "x-a2a-errors": [] }));
    const c = await getTask({ path: { id: "unknown" } });
    expect(await problemsWith(doc, c)).toMatch(/404: the error body names none of x-a2a-errors/);
  });
  it("a status without a response object", async () => {
    const doc = changed(["paths", "/tasks/{id}", "get", "responses"], (r) => delete r["404"]);
    const c = await getTask({ path: { id: "unknown" } });
    expect(await problemsWith(doc, c)).toMatch(/GET \/tasks\/\{id\} → 404: no response object/);
  });
  it("a content type the response object does not list", async () => {
    const content = ["paths", "/tasks/{id}", "get", "responses", "200", "content"];
    const doc = changed(content, (c) => {
      c["application/json"] = c["application/a2a+json"];
      delete c["application/a2a+json"];
    });
    expect(await problemsWith(doc, await getTask())).toMatch(
      /content type application\/a2a\+json not in application\/json/,
    );
  });
  it("an SSE event whose data the schema refuses", async () => {
    const doc = changed(["components", "schemas", "TaskStatusUpdateEvent"], (s) => {
      s["required"] = ["taskId", "missing"];
    });
    const c: RestCall = { method: "POST", template: "/message:stream", body: { message: message10("e") } };
    expect(await problemsWith(doc, c)).toMatch(/event \d+: .* must have required property 'missing'/);
  });
  it("a query parameter the operation does not declare, and a request body its schema refuses", async () => {
    const doc = changed(["paths", "/tasks/{id}", "get"], (op) => {
      op["parameters"] = (op["parameters"] as unknown[]).filter((p) => !isObject(p) || p["name"] !== "historyLength");
    });
    expect(await problemsWith(doc, await getTask({ query: { historyLength: "1" } }))).toMatch(
      /parameter query:historyLength is not declared/,
    );
    const send: RestCall = { method: "POST", template: "/message:send", body: { message: message10("b"), extra: 1 } };
    expect(await problemsWith(documentOf("v1.0.1"), send)).toMatch(/request: .*closed.* unevaluated properties/);
  });
});
