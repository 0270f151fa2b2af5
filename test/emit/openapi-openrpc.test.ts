/**
 * The OpenAPI and OpenRPC documents (emit=openapi, emit=openrpc), checked by tools that are not ours:
 * @readme/openapi-parser validates the OpenAPI documents, Redocly CLI lints them with its recommended rules,
 * @open-rpc/schema-utils-js validates the OpenRPC documents, and ajv checks that the v0.3 OpenRPC schemas
 * accept and refuse the same payloads as a2a.json (v0.3.0 specification/json/a2a.json from ../shared/a2a-spec).
 * The plugin runs in-process on the pinned protos; what it writes is also what generated-samples/ holds.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { Ajv } from "ajv";
import { validate as validateOpenApi } from "@readme/openapi-parser";
import { createRequire } from "node:module";
import type { Route } from "@protoc-gen-a2a/runtime/protocol";
import { Ajv2020 } from "ajv/dist/2020.js";
import { fromJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { messageJson } from "../../packages/runtime/src/core/protojson-write.js";
import * as pb from "../../generated-samples/v1.0.1/a2a_pb.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { buildImage, request, runPlugin } from "../helpers/in-process.js";
import { repoRoot, run, tempDir } from "../helpers/run.js";

/**
 * @open-rpc/schema-utils-js, loaded by require: its types reach @open-rpc/spec-types' TypeScript sources,
 * which do not compile under this project's flags (unused locals).
 */
const openRpcUtils = createRequire(import.meta.url)("@open-rpc/schema-utils-js") as {
  validateOpenRPCDocument(doc: unknown): true | Error;
  dereferenceDocument(doc: unknown): Promise<unknown>;
};
const { dereferenceDocument, validateOpenRPCDocument } = openRpcUtils;
// biome-ignore lint/suspicious/noExplicitAny: the documents are read as plain JSON and walked by key
type Doc = Record<string, any>;
const VERSIONS = ["v0.3.0", "v1.0.1"] as const;
const FILES = VERSIONS.map((v) => `${v}/a2a.proto`);
const redocly = join(repoRoot, "node_modules/.bin/redocly");
let yamlRun: Map<string, string>;
let jsonRun: Map<string, string>;

beforeAll(() => {
  const image = buildImage([...VERSIONS]);
  const go = (opt: string[]) => {
    const r = runPlugin(request(image, FILES, ["target=ts", ...opt]));
    if (r.error) throw r.error;
    return r.files;
  };
  yamlRun = go(["emit=openapi+openrpc"]);
  jsonRun = go(["emit=openapi+openrpc", "openapi_format=json"]);
}, 120_000);

const openApi = (v: string): Doc => parseYaml(yamlRun.get(`${v}/a2a_openapi.yaml`)!) as Doc;
const openRpc = (v: string): Doc => JSON.parse(yamlRun.get(`${v}/a2a_openrpc.json`)!) as Doc;
const routeTable = (v: string): { routes: Route[]; aliases: Route[] } =>
  JSON.parse(readFileSync(join(repoRoot, `generated-samples/${v}/a2a_routes.json`), "utf8"));
/** Redocly CLI's lint with its recommended rules, in the file's folder (so no config of ours applies). */
function lint(file: string) {
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
  const r = run(redocly, ["lint", file, "--format=json", "--extends=recommended"], { cwd: dirname(file), env });
  const report = JSON.parse(r.stdout.toString("utf8")) as { totals: { errors: number }; problems: Doc[] };
  return { r, report };
}
const operations = (d: Doc) =>
  Object.entries(d["paths"] as Record<string, Record<string, Doc>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

describe("emit=openapi", () => {
  it("writes what generated-samples/ holds, YAML by default and the same tree as JSON with openapi_format=json", () => {
    for (const v of VERSIONS) {
      const yaml = yamlRun.get(`${v}/a2a_openapi.yaml`)!;
      expect(yaml).toBe(readFileSync(join(repoRoot, `generated-samples/${v}/a2a_openapi.yaml`), "utf8"));
      expect(jsonRun.has(`${v}/a2a_openapi.yaml`)).toBe(false);
      expect(JSON.parse(jsonRun.get(`${v}/a2a_openapi.json`)!)).toEqual(parseYaml(yaml));
      expect(yaml).not.toMatch(/^\s*[&*][a-z0-9]+\s/m); // no YAML anchors or aliases
    }
  });

  it.each(VERSIONS)("%s validates with @readme/openapi-parser", async (v) => {
    const result = await validateOpenApi(openApi(v) as Parameters<typeof validateOpenApi>[0]);
    expect(result.valid ? [] : result.errors, JSON.stringify(result)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("@readme/openapi-parser refuses a document with a path parameter left undeclared", async () => {
    const broken = openApi("v1.0.1");
    const get = broken["paths"]["/tasks/{id}"]["get"] as Doc;
    get["parameters"] = (get["parameters"] as Doc[]).filter((p) => p["name"] !== "id");
    expect((await validateOpenApi(broken as Parameters<typeof validateOpenApi>[0])).valid).toBe(false);
  });

  it.each(VERSIONS)("%s lints without errors under Redocly's recommended rules", (v) => {
    const dir = tempDir("openapi-lint");
    const file = join(dir, "a2a_openapi.yaml");
    writeFileSync(file, yamlRun.get(`${v}/a2a_openapi.yaml`)!);
    const { r, report } = lint(file);
    const errors = report.problems.filter((p) => p["severity"] === "error");
    expect(errors, JSON.stringify(errors, null, 1)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(r.status).toBe(0);
  });

  it("Redocly reports an error for a document with two operations of one operationId", () => {
    const broken = openApi("v1.0.1");
    broken["paths"]["/{tenant}/tasks/{id}"]["get"]["operationId"] = "GetTask";
    const dir = tempDir("openapi-lint");
    const file = join(dir, "broken.json");
    writeFileSync(file, JSON.stringify(broken));
    const { r, report } = lint(file);
    expect(report.totals.errors).toBeGreaterThan(0);
    expect(r.status).not.toBe(0);
  });

  it.each(VERSIONS)("%s has one operation per route of the route table, tenant twins and aliases included", (v) => {
    const doc = openApi(v);
    const ops = operations(doc);
    const table = routeTable(v);
    const routes = [...table.routes, ...table.aliases];
    expect(ops).toHaveLength(routes.length);
    expect(new Set(ops.map((o) => o.op["operationId"])).size).toBe(ops.length);
    for (const r of routes) {
      const o = ops.find((x) => x.method === r.method && x.op["x-a2a-route"]["template"] === r.template);
      expect(o, `${r.method} ${r.template}`).toBeDefined();
      const op = o!.op;
      expect(op["x-a2a-route"]).toMatchObject({
        origin: r.origin,
        priority: r.priority,
        tenantVariant: r.tenantVariant,
      });
      expect(o!.path.endsWith(r.verb ? `:${r.verb}` : "")).toBe(true);
      const params = op["parameters"] as Doc[];
      const query = params.filter((p) => p["in"] === "query" && p["x-a2a-field"] !== undefined);
      expect(query.map((p) => p["name"])).toEqual(r.queryFields.map((q) => q.jsonName));
      expect(Boolean(op["requestBody"])).toBe(r.body !== null);
      const content = Object.keys(op["responses"]["200"]["content"]);
      expect(content).toEqual([r.responseContentType]);
      if (r.tenantVariant) expect(o!.path.startsWith("/{tenant}/")).toBe(true);
      if (r.origin === "override") expect(op["x-a2a-overrides"].length).toBeGreaterThan(0);
    }
  });

  it("declares v1.0's version header and query parameter, and each version's extensions header", () => {
    const names = (v: string) =>
      Object.values(openApi(v)["components"]["parameters"] as Record<string, Doc>).map(
        (p) => `${p["in"]} ${p["name"]}`,
      );
    expect(names("v1.0.1")).toEqual(["header A2A-Version", "query A2A-Version", "header A2A-Extensions"]);
    expect(names("v0.3.0")).toEqual(["header X-A2A-Extensions"]);
  });

  it("writes ProtoJSON schemas: int64 strings, enum names, oneofs, well-known types, REQUIRED fields", () => {
    const s = openApi("v1.0.1")["components"]["schemas"] as Record<string, Doc>;
    expect(s["TaskState"]!["enum"]).toContain("TASK_STATE_COMPLETED");
    expect(s["Task"]!["required"]).toEqual(["id", "status"]);
    expect(s["Task"]!["properties"]["metadata"]["type"]).toBe("object");
    expect(s["TaskStatus"]!["properties"]["timestamp"]).toMatchObject({ type: "string", format: "date-time" });
    const content = (s["Part"]!["allOf"] as Doc[]).find((c) => c["x-oneof"] === "content")!;
    expect((content["oneOf"] as Doc[]).map((b) => b["title"])).toEqual(["text", "raw", "url", "data", "no content"]);
    const int64 = Object.values(s).flatMap((m) =>
      Object.values((m["properties"] ?? {}) as Record<string, Doc>).filter((p) => p["format"] === "int64"),
    );
    for (const p of int64) expect(p["type"]).toBe("string");
  });

  it("answers every catalog status with the error body and lists its errors", () => {
    for (const v of VERSIONS) {
      const doc = openApi(v);
      const responses = doc["components"]["responses"] as Record<string, Doc>;
      const listed = Object.values(responses).flatMap((r) => (r["x-a2a-errors"] as Doc[]).map((e) => e["name"]));
      const catalog = (doc["x-a2a-overrides"] as Doc[]).find((o) => o["target"] === "api.errors");
      expect(catalog).toBeDefined();
      expect(listed).toContain("TaskNotFoundError");
      for (const { op } of operations(doc)) expect(Object.keys(op["responses"])).toContain("404");
    }
    const body = openApi("v1.0.1")["components"]["schemas"]["Error"] as Doc;
    expect(body["properties"]["error"]["properties"]["details"]["items"]).toEqual({
      $ref: "#/components/schemas/ErrorInfo",
    });
  });

  it("takes info from the lock and streams server-streaming operations as SSE", () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, "proto/a2a.lock.json"), "utf8")) as {
      inputs: { version: string; commit: string }[];
    };
    for (const v of VERSIONS) {
      const info = openApi(v)["info"] as Doc;
      expect(info["version"]).toBe(v.slice(1));
      expect(info["x-a2a-source"]["commit"]).toBe(lock.inputs.find((i) => i.version === v)!.commit);
    }
    const stream = openApi("v1.0.1")["paths"]["/message:stream"]["post"]["responses"]["200"]["content"];
    expect(stream["text/event-stream"]["schema"]["items"]["properties"]["data"]["contentSchema"]).toEqual({
      $ref: "#/components/schemas/StreamResponse",
    });
  });
});

describe("emit=openrpc", () => {
  it.each(VERSIONS)("%s validates with @open-rpc/schema-utils-js and its references resolve", async (v) => {
    const doc = openRpc(v);
    expect(yamlRun.get(`${v}/a2a_openrpc.json`)).toBe(
      readFileSync(join(repoRoot, `generated-samples/${v}/a2a_openrpc.json`), "utf8"),
    );
    expect(validateOpenRPCDocument(doc)).toBe(true);
    await expect(dereferenceDocument(doc)).resolves.toBeDefined();
  });

  it("@open-rpc/schema-utils-js refuses a method without a result schema", () => {
    const broken = openRpc("v1.0.1");
    delete broken["methods"][0]["result"]["schema"];
    expect(validateOpenRPCDocument(broken)).not.toBe(true);
  });

  it("names methods as each version's JSON-RPC binding does, with the catalog's errors", () => {
    const v03 = openRpc("v0.3.0");
    expect(v03["methods"].map((m: Doc) => m["name"])).toContain("message/send");
    expect(v03["methods"].map((m: Doc) => m["name"])).toContain("tasks/resubscribe");
    const v10 = openRpc("v1.0.1");
    expect(v10["methods"].map((m: Doc) => m["name"])).toContain("SendMessage");
    expect(v10["components"]["errors"]["TaskNotFoundError"]).toMatchObject({ code: -32001 });
    expect(v10["components"]["errors"]["TaskNotFoundError"]["data"][0]["reason"]).toBe("TASK_NOT_FOUND");
    expect(v03["components"]["errors"]["TaskNotFoundError"]).toEqual({ code: -32001, message: "Task not found" });
  });
});

describe("the v0.3 OpenRPC schemas and a2a.json", () => {
  const a2aJson = JSON.parse(readFileSync(join(repoRoot, "../shared/a2a-spec/v0.3.0/a2a.json"), "utf8")) as object;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  let ours: (name: string) => (x: unknown) => boolean;
  let theirs: (name: string) => (x: unknown) => boolean;

  beforeAll(() => {
    const doc = openRpc("v0.3.0");
    // Each method's params as one object, so a params sample can be checked whole.
    for (const m of doc["methods"] as Doc[]) {
      const params = m["params"] as Doc[];
      doc["components"]["schemas"][`params:${m["name"]}`] = {
        type: "object",
        properties: Object.fromEntries(params.map((p) => [p["name"], p["schema"]])),
        required: params.filter((p) => p["required"]).map((p) => p["name"]),
      };
    }
    ajv.addSchema(a2aJson, "a2a");
    ajv.addSchema(doc, "rpc");
    const get = (uri: string) => {
      const f = ajv.getSchema(uri);
      if (!f) throw new Error(`no schema ${uri}`);
      return (x: unknown) => f(x) as boolean;
    };
    ours = (name) => get(`rpc#/components/schemas/${name.replaceAll("/", "~1")}`);
    theirs = (name) => get(`a2a#/definitions/${name}`);
  });

  const message = {
    kind: "message",
    messageId: "m-1",
    role: "user",
    parts: [
      { kind: "text", text: "hello" },
      { kind: "file", file: { uri: "https://example.org/a.png", mimeType: "image/png", name: "a.png" } },
      { kind: "file", file: { bytes: "aGVsbG8=" } },
      { kind: "data", data: { answer: 42 }, metadata: { k: "v" } },
    ],
    contextId: "c-1",
  };
  const status = { state: "input-required", message: { ...message, role: "agent" }, timestamp: "2025-01-01T00:00:00Z" };
  const task = {
    kind: "task",
    id: "t-1",
    contextId: "c-1",
    status,
    history: [message],
    artifacts: [{ artifactId: "a-1", parts: [{ kind: "text", text: "done" }], name: "out" }],
    metadata: { x: 1 },
  };
  const config = {
    taskId: "t-1",
    pushNotificationConfig: { url: "https://example.org/hook", id: "p-1", authentication: { schemes: ["Bearer"] } },
  };
  const card = {
    protocolVersion: "0.3.0",
    name: "Echo",
    description: "Echoes",
    url: "http://127.0.0.1:1/a2a",
    version: "1.0.0",
    capabilities: { streaming: true, extensions: [{ uri: "urn:x", required: false }] },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"] }],
    securitySchemes: {
      key: { type: "apiKey", in: "header", name: "X-Key" },
      oidc: { type: "openIdConnect", openIdConnectUrl: "https://example.org/.well-known/openid-configuration" },
    },
    security: [{ key: [] }],
    additionalInterfaces: [{ url: "http://127.0.0.1:1/a2a", transport: "JSONRPC" }],
  };
  const samples: [string, string, unknown][] = [
    ["Message", "Message", message],
    ["Task", "Task", task],
    [
      "TaskStatusUpdateEvent",
      "TaskStatusUpdateEvent",
      { kind: "status-update", taskId: "t-1", contextId: "c-1", status, final: true },
    ],
    [
      "TaskArtifactUpdateEvent",
      "TaskArtifactUpdateEvent",
      { kind: "artifact-update", taskId: "t-1", contextId: "c-1", artifact: task.artifacts[0], append: false },
    ],
    ["TaskPushNotificationConfig", "TaskPushNotificationConfig", config],
    ["Task", "SendMessageResponse", task],
    ["Message", "SendMessageResponse", message],
    ["Task", "StreamResponse", task],
    [
      "TaskStatusUpdateEvent",
      "StreamResponse",
      { kind: "status-update", taskId: "t-1", contextId: "c-1", status, final: false },
    ],
    ["AgentCard", "AgentCard", card],
    ["MessageSendParams", "params:message/send", { message, configuration: { blocking: true, historyLength: 2 } }],
    ["TaskQueryParams", "params:tasks/get", { id: "t-1", historyLength: 1 }],
    ["TaskIdParams", "params:tasks/cancel", { id: "t-1" }],
    [
      "GetTaskPushNotificationConfigParams",
      "params:tasks/pushNotificationConfig/get",
      { id: "t-1", pushNotificationConfigId: "p-1" },
    ],
  ];

  it.each(samples)("a2a.json %s and our %s accept the same sample", (def, name, sample) => {
    expect(theirs(def)(sample)).toBe(true);
    expect(ours(name)(sample)).toBe(true);
  });

  const broken: [string, string, unknown][] = [
    ["Task", "Task", { ...task, kind: "message" }],
    ["Task", "Task", { ...task, status: { state: "done" } }],
    ["Message", "Message", { ...message, parts: [{ kind: "video", video: "x" }] }],
    ["Message", "Message", { ...message, role: "robot" }],
    ["Message", "Message", { ...message, parts: [{ kind: "file", file: { mimeType: "image/png" } }] }],
    ["AgentCard", "AgentCard", { ...card, securitySchemes: { key: { type: "apiKey", name: "X-Key" } } }],
    ["TaskPushNotificationConfig", "TaskPushNotificationConfig", { taskId: "t-1" }],
    ["TaskQueryParams", "params:tasks/get", { historyLength: 1 }],
    [
      "TaskPushNotificationConfig",
      "params:tasks/pushNotificationConfig/set",
      { pushNotificationConfig: { url: "https://x" } },
    ],
    ["TaskIdParams", "params:tasks/cancel", {}],
    ["TaskIdParams", "params:tasks/resubscribe", {}],
    ["ListTaskPushNotificationConfigParams", "params:tasks/pushNotificationConfig/list", {}],
    ["DeleteTaskPushNotificationConfigParams", "params:tasks/pushNotificationConfig/delete", {}],
  ];

  it.each(broken)("a2a.json %s and our %s refuse the same broken sample", (def, name, sample) => {
    expect(theirs(def)(sample)).toBe(false);
    expect(ours(name)(sample)).toBe(false);
  });
});

describe("the v1.0 OpenAPI schemas and the runtime's ProtoJSON", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  let ours: (name: string) => ((x: unknown) => boolean) & { errors?: unknown };

  beforeAll(() => {
    ajv.addSchema(openApi("v1.0.1"), "oas");
    ours = (name) => ajv.getSchema(`oas#/components/schemas/${name}`)! as never;
  });

  /** Read by protobuf-es's ProtoJSON parser, then written as the runtime writes v1.0 JSON. */
  const json = (schema: DescMessage, protoJson: JsonValue) =>
    messageJson(A2AServiceV1_0 as never, schema, fromJson(schema, protoJson));
  const parts = [
    { text: "hi" },
    { raw: "AQID", mediaType: "application/octet-stream" },
    { url: "https://example.org/a.png", filename: "a.png" },
    { data: { a: [1, "x", null] }, metadata: { k: true } },
  ];
  const message = { messageId: "m-1", role: "ROLE_USER", parts, contextId: "c-1", extensions: ["urn:x"] };
  const status = { state: "TASK_STATE_WORKING", timestamp: "1970-01-01T00:00:00Z", message };
  const task = {
    id: "t-1",
    contextId: "c-1",
    status,
    history: [message],
    artifacts: [{ artifactId: "a-1", parts }],
    metadata: { n: 1 },
  };
  const samples: [string, DescMessage, JsonValue][] = [
    ["Task", pb.TaskSchema, task],
    ["Message", pb.MessageSchema, message],
    ["TaskStatusUpdateEvent", pb.TaskStatusUpdateEventSchema, { taskId: "t-1", contextId: "c-1", status }],
    ["StreamResponse", pb.StreamResponseSchema, { task }],
    ["SendMessageResponse", pb.SendMessageResponseSchema, { message }],
    ["ListTasksResponse", pb.ListTasksResponseSchema, { tasks: [] }],
    ["Task", pb.TaskSchema, { id: "", status: {} }],
  ];

  it.each(samples)("%s: the runtime's JSON validates", (name, schema, init) => {
    const value = json(schema, init);
    const check = ours(name);
    expect(check(value), JSON.stringify({ value, errors: check.errors })).toBe(true);
  });

  it("refuses JSON the runtime would not write", () => {
    const value = json(pb.TaskSchema, task) as Record<string, unknown>;
    expect(ours("Task")({ ...value, status: { state: "WORKING" } })).toBe(false);
    expect(ours("Task")({ ...value, status: undefined })).toBe(false);
    const part = { text: "a", url: "https://example.org" };
    expect(ours("Part")(part)).toBe(false);
    expect(ours("ListTasksResponse")({ tasks: [] })).toBe(false);
  });
});
