/**
 * The OpenRPC documents (generated-samples/<version>/a2a_openrpc.json) against the running example agent, which
 * serves A2A 1.0 (A2A-Version: 1.0) and, through the version bridge, 0.3 (no header) at one JSON-RPC URL: every
 * method of each version is called, success and error cases and the streams, and each exchange is checked by
 * openrpc-live.ts (params declared and valid, JSON-RPC envelope, result against the method's result schema, also
 * closed; error codes from the method's or the document's errors, with the document's data). The last case of
 * each version compares the methods called with the document's. A case that fails because the document is
 * wrong is marked `it.fails` in DEFECTS with the defect.
 */
import { apiKeySecurity } from "../helpers/example-process.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import { WAIT_TEXT } from "../../examples/echo-agent/echo-handler.js";
import { at, isObject, object } from "../helpers/doc-schemas.js";
import { openRpcLive, type OpenRpcLive, type RpcCall, type RpcReply } from "../helpers/openrpc-live.js";
import { repoRoot } from "../helpers/run.js";

const HOOK = "http://127.0.0.1:9/hook"; // never called: configs are set on finished tasks only
/** Cases that fail because the document is wrong, with the defect (empty: none known). */
const DEFECTS: Readonly<Record<string, string>> = {};

/** The agents require an API key (so they declare the extended card, which needs a caller); calls send it. */
const KEY = { "x-api-key": "docs-key" };
const security = () => apiKeySecurity({ docs: "docs-key" });

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startEchoAgent({ security: security() });
});
afterAll(() => agent?.close());

const documentOf = (v: string): unknown =>
  JSON.parse(readFileSync(join(repoRoot, `generated-samples/${v}/a2a_openrpc.json`), "utf8"));

/** Calls `c`; expects no disagreement with the document, and the error code (undefined: a result). */
async function expectCall(live: OpenRpcLive, c: RpcCall, code?: number): Promise<RpcReply> {
  const reply = await live.call(c);
  expect(reply.problems).toEqual([]);
  expect(reply.error?.code, JSON.stringify(reply.responses)).toBe(code);
  return reply;
}

/** A field of a JSON reply, read along `keys` (an index for an array). */
function field(json: unknown, ...keys: string[]): unknown {
  const step = (node: unknown, k: string) =>
    Array.isArray(node) ? node[Number(k)] : isObject(node) ? node[k] : undefined;
  return keys.reduce<unknown>(step, json);
}

type Case = readonly [name: string, run: () => Promise<void>];

function defineCases(version: string, live: () => OpenRpcLive, cases: readonly Case[]) {
  describe(`${version} JSON-RPC against a2a_openrpc.json`, () => {
    for (const [name, run] of cases) {
      const defect = DEFECTS[`${version} ${name}`];
      (defect ? it.fails : it)(defect ? `${name} (document defect: ${defect})` : name, run);
    }
    it("called every method of the document", () => {
      expect([...live().called].sort()).toEqual([...live().methods].sort());
    });
  });
}

/** The protocol errors, the same in both versions: a method the document does not list, a body that is not JSON. */
const protocolCases = (live: () => OpenRpcLive): Case[] => [
  [
    "an unknown method is MethodNotFound (-32601)",
    async () => void (await expectCall(live(), { method: "x/y" }, -32601)),
  ],
  [
    "a body that is not JSON is a parse error (-32700)",
    async () => void (await expectCall(live(), { method: "-", rawBody: "{not json" }, -32700)),
  ],
  [
    "a request without a method is InvalidRequest (-32600)",
    async () => void (await expectCall(live(), { method: "-", rawBody: '{"jsonrpc":"2.0","id":5}' }, -32600)),
  ],
];

// --- v1.0.1 -----------------------------------------------------------------------------------------------

const V10 = { "A2A-Version": "1.0" };
const EXTENSION = "urn:example:required";
let live10: OpenRpcLive;
beforeAll(() => {
  live10 = openRpcLive(documentOf("v1.0.1"), { url: agent.urls.jsonrpc, headers: { ...V10, ...KEY }, id: "rpc10" });
});

const call10 = (c: RpcCall, code?: number) => expectCall(live10, c, code);
const message10 = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });

async function task10(text: string, tenant?: string): Promise<string> {
  const configuration = text === WAIT_TEXT ? { configuration: { returnImmediately: true } } : {};
  const reply = await call10({
    method: "SendMessage",
    params: { message: message10(text), ...configuration, ...(tenant ? { tenant } : {}) },
  });
  return String(field(reply.results[0], "task", "id"));
}

const cases10: Case[] = [
  [
    "SendMessage: a text is echoed and the task completes",
    async () => {
      const reply = await call10({ method: "SendMessage", params: { message: message10("hi") } });
      expect(field(reply.results[0], "task", "status", "state")).toBe("TASK_STATE_COMPLETED");
    },
  ],
  ["SendMessage: with a tenant", async () => void (await task10("hi", "acme"))],
  [
    "SendMessage: a message without a role is InvalidParams (-32602)",
    async () => {
      const params = { message: { messageId: "m", parts: [{ text: "x" }] } };
      await call10({ method: "SendMessage", params, offDocument: true }, -32602);
    },
  ],
  [
    "SendStreamingMessage: events up to the completed status",
    async () => {
      const reply = await call10({ method: "SendStreamingMessage", params: { message: message10("s") } });
      expect(field(reply.results.at(-1), "statusUpdate", "status", "state")).toBe("TASK_STATE_COMPLETED");
    },
  ],
  [
    "GetTask: the task",
    async () => {
      const id = await task10("get");
      expect(field((await call10({ method: "GetTask", params: { id, historyLength: 1 } })).results[0], "id")).toBe(id);
    },
  ],
  [
    "GetTask: an unknown id is TaskNotFound (-32001, with ErrorInfo)",
    async () => void (await call10({ method: "GetTask", params: { id: "unknown" } }, -32001)),
  ],
  [
    "ListTasks: a page of tasks",
    async () => {
      const id = await task10("listed");
      const reply = await call10({ method: "ListTasks", params: { pageSize: 100, includeArtifacts: true } });
      expect((field(reply.results[0], "tasks") as unknown[]).map((t) => field(t, "id"))).toContain(id);
    },
  ],
  [
    "ListTasks: pageSize -1 is InvalidParams (-32602)",
    async () => void (await call10({ method: "ListTasks", params: { pageSize: -1 } }, -32602)),
  ],
  [
    "CancelTask: a working task is canceled",
    async () => {
      const reply = await call10({ method: "CancelTask", params: { id: await task10(WAIT_TEXT) } });
      expect(field(reply.results[0], "status", "state")).toBe("TASK_STATE_CANCELED");
    },
  ],
  [
    "CancelTask: a completed task is TaskNotCancelable (-32002)",
    async () => void (await call10({ method: "CancelTask", params: { id: await task10("done") } }, -32002)),
  ],
  [
    "SubscribeToTask: events until the task is canceled",
    async () => {
      const id = await task10(WAIT_TEXT);
      const cancel = async () => void (await call10({ method: "CancelTask", params: { id } }));
      const reply = await call10({ method: "SubscribeToTask", params: { id }, afterFirstEvent: cancel });
      expect(field(reply.results.at(-1), "statusUpdate", "status", "state")).toBe("TASK_STATE_CANCELED");
    },
  ],
  [
    "SubscribeToTask: a finished task is UnsupportedOperation (-32004)",
    async () => void (await call10({ method: "SubscribeToTask", params: { id: await task10("finished") } }, -32004)),
  ],
  [
    "Create, List, Get and DeleteTaskPushNotificationConfig(s)",
    async () => {
      const taskId = await task10("push");
      await call10({ method: "CreateTaskPushNotificationConfig", params: { taskId, id: "c1", url: HOOK } });
      const list = await call10({ method: "ListTaskPushNotificationConfigs", params: { taskId } });
      expect(field(list.results[0], "configs", "0", "id")).toBe("c1");
      const got = await call10({ method: "GetTaskPushNotificationConfig", params: { taskId, id: "c1" } });
      expect(field(got.results[0], "url")).toBe(HOOK);
      await call10({ method: "DeleteTaskPushNotificationConfig", params: { taskId, id: "c1" } });
    },
  ],
  [
    "CreateTaskPushNotificationConfig: an unknown task is TaskNotFound (-32001)",
    async () => {
      await call10({ method: "CreateTaskPushNotificationConfig", params: { taskId: "unknown", url: HOOK } }, -32001);
    },
  ],
  [
    "GetExtendedAgentCard",
    async () => expect(field((await call10({ method: "GetExtendedAgentCard" })).results[0], "name")).toBe("Echo agent"),
  ],
  [
    "a Content-Type the binding does not take is ContentTypeNotSupported (-32005)",
    async () => {
      const c: RpcCall = { method: "GetTask", params: { id: "x" }, headers: { "content-type": "text/plain" } };
      // The agent refuses the body unread, so its answer's id is null (JSON-RPC 2.0 §5: id not detected).
      await call10({ ...c, rawBody: JSON.stringify({ jsonrpc: "2.0", id: 6, ...c }), responseId: null }, -32005);
    },
  ],
  [
    "A2A-Version 9.9 is VersionNotSupported (-32009)",
    async () =>
      void (await call10({ method: "GetTask", params: { id: "x" }, headers: { "A2A-Version": "9.9" } }, -32009)),
  ],
  [
    "an agent requiring an extension: ExtensionSupportRequired (-32008), then declared in A2A-Extensions",
    async () => {
      const strict = await startEchoAgent({ requiredExtensions: [EXTENSION], security: security() });
      try {
        const live = openRpcLive(documentOf("v1.0.1"), {
          url: strict.urls.jsonrpc,
          headers: { ...V10, ...KEY },
          id: "rpc10-strict",
        });
        await expectCall(live, { method: "GetTask", params: { id: "x" } }, -32008);
        await expectCall(
          live,
          { method: "GetTask", params: { id: "x" }, headers: { "A2A-Extensions": EXTENSION } },
          -32001,
        );
      } finally {
        await strict.close();
      }
    },
  ],
  ...protocolCases(() => live10),
];

defineCases("v1.0.1", () => live10, cases10);

// --- v0.3.0 (no A2A-Version header: the bridge; a2a.json shapes) -------------------------------------------

let live03: OpenRpcLive;
beforeAll(() => {
  live03 = openRpcLive(documentOf("v0.3.0"), { url: agent.urls.jsonrpc, headers: KEY, id: "rpc03" });
});

const call03 = (c: RpcCall, code?: number) => expectCall(live03, c, code);
const message03 = (text: string) => ({
  kind: "message",
  messageId: crypto.randomUUID(),
  role: "user",
  parts: [{ kind: "text", text }],
});

async function task03(text: string): Promise<string> {
  const configuration = text === WAIT_TEXT ? { configuration: { blocking: false } } : {};
  const reply = await call03({ method: "message/send", params: { message: message03(text), ...configuration } });
  return String(field(reply.results[0], "id"));
}

const cases03: Case[] = [
  [
    "message/send: a text is echoed and the task completes",
    async () => {
      const reply = await call03({ method: "message/send", params: { message: message03("hi") } });
      expect(field(reply.results[0], "status", "state")).toBe("completed");
    },
  ],
  [
    "message/send: a message without a role is InvalidParams (-32602)",
    async () => {
      const params = { message: { kind: "message", messageId: "m", parts: [{ kind: "text", text: "x" }] } };
      await call03({ method: "message/send", params, offDocument: true }, -32602);
    },
  ],
  [
    "message/stream: events up to the completed status",
    async () => {
      const reply = await call03({ method: "message/stream", params: { message: message03("s") } });
      expect(field(reply.results.at(-1), "status", "state")).toBe("completed");
    },
  ],
  [
    "tasks/get: the task",
    async () => {
      const id = await task03("get");
      expect(field((await call03({ method: "tasks/get", params: { id, historyLength: 1 } })).results[0], "id")).toBe(
        id,
      );
    },
  ],
  [
    "tasks/get: an unknown id is TaskNotFound (-32001)",
    async () => void (await call03({ method: "tasks/get", params: { id: "unknown" } }, -32001)),
  ],
  [
    "tasks/cancel: a working task is canceled",
    async () => {
      const reply = await call03({ method: "tasks/cancel", params: { id: await task03(WAIT_TEXT) } });
      expect(field(reply.results[0], "status", "state")).toBe("canceled");
    },
  ],
  [
    "tasks/cancel: a completed task is TaskNotCancelable (-32002)",
    async () => void (await call03({ method: "tasks/cancel", params: { id: await task03("done") } }, -32002)),
  ],
  [
    "tasks/resubscribe: events until the task is canceled",
    async () => {
      const id = await task03(WAIT_TEXT);
      const cancel = async () => void (await call03({ method: "tasks/cancel", params: { id } }));
      const reply = await call03({ method: "tasks/resubscribe", params: { id }, afterFirstEvent: cancel });
      expect(field(reply.results.at(-1), "status", "state")).toBe("canceled");
    },
  ],
  [
    "tasks/pushNotificationConfig/set, list, get, delete",
    async () => {
      const id = await task03("push");
      const set = { taskId: id, pushNotificationConfig: { id: "c1", url: HOOK } };
      await call03({ method: "tasks/pushNotificationConfig/set", params: set });
      const list = await call03({ method: "tasks/pushNotificationConfig/list", params: { id } });
      expect(field(list.results[0], "0", "pushNotificationConfig", "id")).toBe("c1");
      const one = { id, pushNotificationConfigId: "c1" };
      const got = await call03({ method: "tasks/pushNotificationConfig/get", params: one });
      expect(field(got.results[0], "pushNotificationConfig", "url")).toBe(HOOK);
      await call03({ method: "tasks/pushNotificationConfig/delete", params: one });
    },
  ],
  [
    "tasks/pushNotificationConfig/get: an unknown task is TaskNotFound (-32001)",
    async () => {
      const params = { id: "unknown", pushNotificationConfigId: "c1" };
      await call03({ method: "tasks/pushNotificationConfig/get", params }, -32001);
    },
  ],
  [
    "agent/getAuthenticatedExtendedCard",
    async () => {
      const reply = await call03({ method: "agent/getAuthenticatedExtendedCard" });
      expect(field(reply.results[0], "name")).toBe("Echo agent");
    },
  ],
  ...protocolCases(() => live03),
];

defineCases("v0.3.0", () => live03, cases03);

// --- the checks can fail ------------------------------------------------------------------------------------

describe("openrpc-live reports a document that disagrees with the agent", () => {
  /** The v1.0.1 document with the object at `tokens` changed by `change`. */
  function changed(tokens: readonly string[], change: (node: Record<string, unknown>) => void): unknown {
    const doc = documentOf("v1.0.1");
    change(object(at(doc, tokens), tokens.join("/")) as Record<string, unknown>);
    return doc;
  }
  const problemsWith = async (doc: unknown, c: RpcCall) => {
    const live = openRpcLive(doc, { url: agent.urls.jsonrpc, headers: { "A2A-Version": "1.0", ...KEY }, id: "mutant" });
    return (await live.call(c)).problems.join("\n");
  };

  it("a result field the schema does not name, and a required one the agent omits", async () => {
    const id = await task10("mutant");
    const doc = changed(["components", "schemas", "Task", "properties"], (p) => delete p["history"]);
    expect(await problemsWith(doc, { method: "GetTask", params: { id } })).toMatch(/closed: .* unevaluated properties/);
    const required = changed(["components", "schemas", "Task"], (s) => Object.assign(s, { required: ["missing"] }));
    expect(await problemsWith(required, { method: "GetTask", params: { id } })).toMatch(/required property 'missing'/);
  });
  it("an error code the document does not list, and error data unlike the document's", async () => {
    const noCode = changed(["components", "errors", "TaskNotFoundError"], (e) => Object.assign(e, { code: -39999 }));
    const call: RpcCall = { method: "GetTask", params: { id: "unknown" } };
    expect(await problemsWith(noCode, call)).toMatch(/error code -32001 is not in the document/);
    const data = changed(["components", "errors", "TaskNotFoundError"], (e) =>
      Object.assign(e, { data: [{ reason: "X" }] }),
    );
    expect(await problemsWith(data, call)).toMatch(/TaskNotFoundError data .* got /);
  });
  it("a stream from a method not marked streaming, and a param the method does not declare", async () => {
    const methods = object(documentOf("v1.0.1"), "doc")["methods"] as unknown[];
    const index = methods.findIndex((m) => isObject(m) && m["name"] === "SendStreamingMessage");
    const doc = changed(["methods", String(index)], (m) => delete m["x-a2a-streaming"]);
    const c: RpcCall = { method: "SendStreamingMessage", params: { message: message10("m") } };
    expect(await problemsWith(doc, c)).toMatch(/a stream from a method not marked x-a2a-streaming/);
    const extra: RpcCall = { method: "SendMessage", params: { message: message10("m"), extra: 1 } };
    expect(await problemsWith(documentOf("v1.0.1"), extra)).toMatch(/param extra not declared/);
  });
});
