/**
 * The HTTP+JSON request Content-Type (issue 24, item 5; override entries
 * rest-request-content-type of both versions): every route that takes a body
 * (every POST route of the route tables, tenant variants and alias routes
 * included) refuses a missing Content-Type and every type a browser may send
 * without a preflight (text/plain, multipart/form-data,
 * application/x-www-form-urlencoded), or any other non-JSON type, before the
 * body is read, with or without a body: ContentTypeNotSupportedError, HTTP
 * 400, at v1.0 with its ErrorInfo (the one JSON-RPC answers with), at v0.3 in
 * the v0.3 error body. Nothing is done: afterwards ListTasks shows no new task,
 * the working task is still working and has no push config. The example agent
 * (both versions at the same URLs) runs on 127.0.0.1; requests go out with
 * node:http, which sends no Content-Type unless told (fetch would add
 * text/plain to a string body). A Content-Encoding other than identity is
 * refused the same way, on both bindings: the servers never decompress.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandPath, type Route } from "@protoc-gen-a2a/runtime/protocol";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { A2AServiceV0_3 } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const TENANT = "t-ct";

let agent: RunningAgent;
/** A task left working ("wait"): the target of cancel, subscribe and push config routes. */
let working: string;

interface Reply {
  readonly status: number;
  readonly type: string | undefined;
  readonly text: string;
}

/** One request with node:http: headers exactly as given (no Content-Type unless given), a new connection. */
function send(method: string, url: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"],
          text: Buffer.concat(chunks).toString(),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? undefined : reject(e)));
    if (body !== undefined) req.setHeader("content-length", Buffer.byteLength(body));
    req.end(body);
  });
}

const V10 = { "A2A-Version": "1.0" };

async function rpc10(method: string, params: unknown): Promise<Record<string, unknown>> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  const r = await send("POST", agent.urls.jsonrpc, { ...V10, "content-type": "application/json" }, body);
  const json = JSON.parse(r.text) as { result?: Record<string, unknown>; error?: unknown };
  if (!json.result) throw new Error(`${method}: ${r.text}`);
  return json.result;
}

/** Every task id ListTasks shows, without a tenant and in TENANT. */
async function allTaskIds(): Promise<string[]> {
  const ids: string[] = [];
  for (const params of [{}, { tenant: TENANT }]) {
    const list = (await rpc10("ListTasks", { ...params, pageSize: 100 })) as { tasks?: { id: string }[] };
    ids.push(...(list.tasks ?? []).map((t) => t.id));
  }
  return ids.sort();
}

/** A concrete URL of a route: each `*` of a variable is the working task's id, a tenant is TENANT. */
function urlOf(route: Route, base: string): string {
  const values: Record<string, string> = {};
  for (const v of route.variables) {
    values[v.field] =
      v.field === "tenant"
        ? TENANT
        : route.segments
            .slice(v.start, v.end)
            .map((s) => (s === "*" ? working : s))
            .join("/");
  }
  return base + expandPath(route, values);
}

/** A body the route would act on with a JSON Content-Type. */
function bodyOf(version: "1.0" | "0.3", route: Route): string {
  const messageId = crypto.randomUUID();
  switch (route.operation) {
    case "SendMessage":
    case "SendStreamingMessage":
      return JSON.stringify({
        message:
          version === "1.0"
            ? { messageId, role: "ROLE_USER", parts: [{ text: "ct" }] }
            : { messageId, role: "ROLE_USER", content: [{ text: "ct" }] },
      });
    case "CreateTaskPushNotificationConfig":
      return JSON.stringify(
        version === "1.0"
          ? { id: "ct", url: "https://example.com/hook" }
          : { pushNotificationConfig: { id: "ct", url: "https://example.com/hook" } },
      );
    default:
      return "{}";
  }
}

/** The POST routes of a version: every route whose rule has a body. */
function bodyRoutes(version: "1.0" | "0.3"): Route[] {
  const def = version === "1.0" ? A2AServiceV1_0 : A2AServiceV0_3;
  return [...def.routes, ...def.aliases].filter((r) => r.body !== null);
}

/** What a browser may send without a preflight, and other types that are not JSON. */
const REFUSED: readonly (string | null)[] = [
  null,
  "",
  "text/plain",
  "text/plain;charset=UTF-8",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "application/xml",
  "application/jsonl",
];

function expectRefused(version: "1.0" | "0.3", r: Reply, type: string | null): void {
  expect(r.status, r.text).toBe(400);
  const problem = type === null || type === "" ? "Content-Type is missing" : "is not supported";
  if (version === "1.0") {
    expect(r.type).toBe("application/a2a+json");
    expect(JSON.parse(r.text)).toEqual({
      error: {
        code: 400,
        status: "INVALID_ARGUMENT",
        message: expect.stringContaining(problem),
        details: [{ "@type": ERROR_INFO, reason: "CONTENT_TYPE_NOT_SUPPORTED", domain: "a2a-protocol.org" }],
      },
    });
  } else {
    expect(r.type).toBe("application/json");
    expect(JSON.parse(r.text)).toEqual({ code: -32005, message: expect.stringContaining(problem) });
  }
}

beforeAll(async () => {
  agent = await startEchoAgent();
  const sent = (await rpc10("SendMessage", {
    message: { messageId: "w", role: "ROLE_USER", parts: [{ text: "wait" }] },
    configuration: { returnImmediately: true },
  })) as { task: { id: string } };
  working = sent.task.id;
});
afterAll(() => agent?.close());

describe.each(["1.0", "0.3"] as const)("HTTP+JSON %s", (version) => {
  const headers = version === "1.0" ? V10 : {};
  const routes = bodyRoutes(version);

  it("has POST routes to check (every route with a body is one)", () => {
    expect(routes.length).toBe(version === "1.0" ? 10 : 6);
    expect(routes.every((r) => r.method === "POST")).toBe(true);
  });

  it("refuses every POST route without a JSON Content-Type, body or not; nothing is done", async () => {
    const before = await allTaskIds();
    let sent = 0;
    for (const route of routes) {
      const url = urlOf(route, agent.urls.rest);
      for (const type of REFUSED) {
        const typed = type === null ? headers : { ...headers, "content-type": type };
        for (const body of [bodyOf(version, route), ""]) {
          const r = await send("POST", url, typed, body);
          expectRefused(version, r, type);
          sent++;
        }
      }
    }
    expect(sent).toBe(routes.length * REFUSED.length * 2);
    expect(await allTaskIds()).toEqual(before);
    const task = (await rpc10("GetTask", { id: working })) as { status: { state: string } };
    expect(task.status.state).toBe("TASK_STATE_WORKING");
    const configs = (await rpc10("ListTaskPushNotificationConfigs", { taskId: working })) as { configs?: unknown[] };
    expect(configs.configs ?? []).toEqual([]);
  });

  it("serves application/json and application/a2a+json, parameters ignored; a GET is not checked", async () => {
    const send10 = bodyRoutes(version).find((r) => r.operation === "SendMessage" && !r.tenantVariant)!;
    for (const type of ["application/json; charset=utf-8", "Application/A2A+JSON", "application/json"]) {
      const r = await send(
        "POST",
        urlOf(send10, agent.urls.rest),
        { ...headers, "content-type": type },
        bodyOf(version, send10),
      );
      expect(r.status, `${type}: ${r.text}`).toBe(200);
    }
    const path = version === "1.0" ? `/tasks/${working}` : `/v1/tasks/${working}`;
    const got = await send("GET", agent.urls.rest + path, { ...headers, "content-type": "text/plain" });
    expect(got.status, got.text).toBe(200);
  });
});

describe("a Content-Encoding other than identity", () => {
  const said = 'Content-Encoding "gzip" is not supported; send the body as it is';

  it("is refused before the body is read, on HTTP+JSON of both versions and on JSON-RPC", async () => {
    for (const version of ["1.0", "0.3"] as const) {
      const send10 = bodyRoutes(version).find((r) => r.operation === "SendMessage" && !r.tenantVariant)!;
      const headers = { ...(version === "1.0" ? V10 : {}), "content-type": "application/json" };
      const url = urlOf(send10, agent.urls.rest);
      const r = await send("POST", url, { ...headers, "content-encoding": "GZIP " }, bodyOf(version, send10));
      expectRefused(version, r, "application/json");
      expect(r.text).toContain(said.replace(/"/g, '\\"'));
      const plain = await send("POST", url, { ...headers, "content-encoding": "identity" }, bodyOf(version, send10));
      expect(plain.status, plain.text).toBe(200);
    }
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} });
    const headers = { ...V10, "content-type": "application/json", "content-encoding": "gzip" };
    const r = await send("POST", agent.urls.jsonrpc, headers, body);
    const { error } = JSON.parse(r.text) as { error: { code: number; message: string } };
    expect([error.code, error.message]).toEqual([-32005, said]);
  });
});
