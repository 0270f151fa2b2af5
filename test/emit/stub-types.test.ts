/**
 * Type-level tests of the generated stubs (generated-samples/v0.3.0 and
 * v1.0.1): one ts.Program holds every generated file plus small snippet
 * files that import the stubs by relative path. Correct usage must compile
 * cleanly under the samples' strict options; each misuse sits in its own
 * snippet and must fail there, with the expected error code, on the line
 * marked `// <- error`.
 *
 * The snippets are virtual: a CompilerHost serves them from memory at paths
 * inside test/emit/ (a real directory of the repo), so relative imports,
 * "@bufbuild/protobuf" and the self-referenced "@protoc-gen-a2a/runtime"
 * resolve exactly as they would for files on disk, and nothing is written.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { repoRoot } from "../helpers/run.js";

const snippetDir = join(repoRoot, "test/emit");
const gen = (v: string) => `../../generated-samples/${v}`;
const V03 = gen("v0.3.0");
const V10 = gen("v1.0.1");
const ERROR_MARK = "// <- error";

// ---------------------------------------------------------------- snippets

/** Exact type equality; `Expect<false>` fails with TS2344. */
const PRELUDE = `
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
type Expect<T extends true> = T;
type Elem<T> = T extends AsyncIterable<infer E> ? E : never;
`;

const V10_METHODS = [
  "sendMessage",
  "sendStreamingMessage",
  "getTask",
  "listTasks",
  "cancelTask",
  "subscribeToTask",
  "createTaskPushNotificationConfig",
  "getTaskPushNotificationConfig",
  "listTaskPushNotificationConfigs",
  "getExtendedAgentCard",
  "deleteTaskPushNotificationConfig",
];

const V03_METHODS = [
  "sendMessage",
  "sendStreamingMessage",
  "getTask",
  "cancelTask",
  "taskSubscription",
  "createTaskPushNotificationConfig",
  "getTaskPushNotificationConfig",
  "listTaskPushNotificationConfig",
  "getAgentCard",
  "deleteTaskPushNotificationConfig",
];

/** Method bodies of a correct handler, per version; every method is used by handlerSnippet. */
const V10_HANDLER: Record<string, string> = {
  sendMessage: `async sendMessage(req, ctx) {
    const text: string | undefined = req.message?.messageId;
    const binding: "JSONRPC" | "HTTP+JSON" | "GRPC" = ctx.binding;
    return { payload: { case: "message", value: { messageId: text ?? binding, role: Role.AGENT, parts: [{ content: { case: "text", value: "hi" } }] } } };
  }`,
  sendStreamingMessage: `async *sendStreamingMessage(req) {
    yield { payload: { case: "task", value: { id: req.message?.taskId ?? "t", contextId: "c", status: { state: TaskState.WORKING } } } };
    yield { payload: { case: "statusUpdate", value: { taskId: "t", contextId: "c", status: { state: TaskState.COMPLETED } } } };
  }`,
  getTask: `async getTask(req) {
    const id: string = req.id;
    return { id, contextId: "c" };
  }`,
  listTasks: `async listTasks(req) {
    return { tasks: [], nextPageToken: "", pageSize: req.pageSize ?? 0, totalSize: 0 };
  }`,
  cancelTask: `async cancelTask(req) {
    return create(TaskSchema, { id: req.id, status: { state: TaskState.CANCELED } });
  }`,
  subscribeToTask: `async *subscribeToTask(req) {
    yield { payload: { case: "task", value: { id: req.id } } };
  }`,
  createTaskPushNotificationConfig: `async createTaskPushNotificationConfig(req) {
    return req;
  }`,
  getTaskPushNotificationConfig: `async getTaskPushNotificationConfig(req) {
    return { id: req.id, taskId: req.taskId, url: "https://example.com/hook" };
  }`,
  listTaskPushNotificationConfigs: `async listTaskPushNotificationConfigs(req) {
    return { configs: [{ taskId: req.taskId, url: "https://example.com/hook" }] };
  }`,
  getExtendedAgentCard: `async getExtendedAgentCard() {
    return { name: "agent", description: "d", version: "1", supportedInterfaces: [{ url: "https://example.com", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
  }`,
  deleteTaskPushNotificationConfig: `async deleteTaskPushNotificationConfig() {
    return {};
  }`,
};

const V03_HANDLER: Record<string, string> = {
  sendMessage: `async sendMessage(req, ctx) {
    const id: string | undefined = req.request?.messageId;
    const version: string = ctx.protocolVersion;
    return { payload: { case: "msg", value: { messageId: id ?? version, role: Role.AGENT, content: [{ part: { case: "text", value: "hi" } }] } } };
  }`,
  sendStreamingMessage: `async *sendStreamingMessage(req) {
    yield { payload: { case: "task", value: { id: req.request?.taskId ?? "t", contextId: "c", status: { state: TaskState.WORKING } } } };
  }`,
  getTask: `async getTask(req) {
    const name: string = req.name;
    return { id: name.replace(/^tasks\\//, ""), contextId: "c" };
  }`,
  cancelTask: `async cancelTask(req) {
    return create(TaskSchema, { id: req.name, status: { state: TaskState.CANCELLED } });
  }`,
  taskSubscription: `async *taskSubscription(req) {
    yield { payload: { case: "task", value: { id: req.name } } };
  }`,
  createTaskPushNotificationConfig: `async createTaskPushNotificationConfig(req) {
    return { name: req.parent, pushNotificationConfig: { url: "https://example.com/hook" } };
  }`,
  getTaskPushNotificationConfig: `async getTaskPushNotificationConfig(req) {
    return { name: req.name };
  }`,
  listTaskPushNotificationConfig: `async listTaskPushNotificationConfig() {
    return { configs: [] };
  }`,
  getAgentCard: `async getAgentCard() {
    return { name: "agent", description: "d", url: "https://example.com", protocolVersion: "0.3.0" };
  }`,
  deleteTaskPushNotificationConfig: `async deleteTaskPushNotificationConfig() {
    return {};
  }`,
};

/**
 * A handler object typed A2AServiceHandler, plus its use by the three
 * server factories; `replace` swaps method bodies (null drops the method).
 */
function handlerSnippet(v: "v03" | "v10", replace: Record<string, string | null> = {}, declMark = ""): string {
  const dir = v === "v03" ? V03 : V10;
  const methods = { ...(v === "v03" ? V03_HANDLER : V10_HANDLER), ...replace };
  const body = Object.values(methods)
    .filter((m): m is string => m !== null)
    .join(",\n  ");
  return `
import { create } from "@bufbuild/protobuf";
import type { A2AServiceHandler } from "${dir}/a2a_a2a.js";
import { createA2AServiceJsonRpcHandler } from "${dir}/a2a_jsonrpc.js";
import { createA2AServiceRestHandler } from "${dir}/a2a_rest.js";
import { a2aServiceGrpcRoutes } from "${dir}/a2a_grpc.js";
import { Role, TaskSchema, TaskState } from "${dir}/a2a_pb.js";

export const handler: A2AServiceHandler = {${declMark}
  ${body},
};

export const servers = [
  createA2AServiceJsonRpcHandler({ handler }),
  createA2AServiceRestHandler({ handler }, "/a2a"),
  a2aServiceGrpcRoutes({ handler }),
] as const;
export const unused = [create, Role, TaskSchema, TaskState] as const;
`;
}

function clientSnippet(v: "v03" | "v10", body: string): string {
  const dir = v === "v03" ? V03 : V10;
  return `
import { createA2AServiceJsonRpcClient } from "${dir}/a2a_jsonrpc.js";
import { Role } from "${dir}/a2a_pb.js";

const client = createA2AServiceJsonRpcClient({ url: "http://localhost:1/a2a" });
export async function misuse(): Promise<unknown> {
  ${body}
}
export const unused = [Role] as const;
`;
}

const good: Record<string, string> = {
  "v10-clients": `
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { JsonRpcCalls } from "@protoc-gen-a2a/runtime/protocol";
import type { A2AServiceClient } from "${V10}/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "${V10}/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "${V10}/a2a_rest.js";
import { createA2AServiceGrpcClient } from "${V10}/a2a_grpc.js";
import { Role, TaskState, type ListTasksResponse, type SendMessageResponse, type StreamResponse, type Task } from "${V10}/a2a_pb.js";
${PRELUDE}
export const client = createA2AServiceJsonRpcClient({ url: "http://localhost:1/a2a" });
export const rest = createA2AServiceRestClient({ url: "http://localhost:1/a2a", tenant: "t1" });
export const grpc = createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: "http://localhost:1" }), { extensions: ["urn:x"] });

export const sent = client.sendMessage({ message: { messageId: "m", role: Role.USER, parts: [] } });
export const restSent = rest.sendMessage({ message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] } }, { timeoutMs: 5 });
export const task = grpc.getTask({ id: "t", historyLength: 2 });
export const listed = client.listTasks({ status: TaskState.WORKING, pageSize: 10 });

export async function events(): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of client.sendStreamingMessage({ message: { messageId: "m", role: Role.USER, parts: [] } })) {
    const isStreamResponse: Expect<Equals<typeof ev, StreamResponse>> = true;
    if (isStreamResponse && ev.payload.case === "statusUpdate") out.push(ev);
  }
  for await (const ev of grpc.subscribeToTask({ id: "t" })) out.push(ev);
  return out;
}

export type Checks = [
  Expect<Equals<typeof sent, Promise<SendMessageResponse>>>,
  Expect<Equals<typeof restSent, Promise<SendMessageResponse>>>,
  Expect<Equals<typeof task, Promise<Task>>>,
  Expect<Equals<typeof listed, Promise<ListTasksResponse>>>,
  Expect<Equals<Elem<ReturnType<typeof client.sendStreamingMessage>>, StreamResponse>>,
  // The JSON-RPC client also names its calls on JSON (the version bridge's one-pass path), as a typed property.
  Expect<Equals<typeof client, A2AServiceClient & { readonly jsonrpc: JsonRpcCalls }>>,
  Expect<Equals<typeof rest, A2AServiceClient>>,
  Expect<Equals<typeof grpc, A2AServiceClient>>,
  Expect<Equals<keyof typeof rest, Exclude<keyof typeof client, "jsonrpc">>>,
  Expect<Equals<keyof typeof grpc, Exclude<keyof typeof client, "jsonrpc">>>,
];
export type JsonRpcClient = typeof client;
export type RestClient = typeof rest;
export type GrpcClient = typeof grpc;
`,
  "v03-clients": `
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { JsonRpcCalls } from "@protoc-gen-a2a/runtime/protocol";
import type { A2AServiceClient } from "${V03}/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "${V03}/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "${V03}/a2a_rest.js";
import { createA2AServiceGrpcClient } from "${V03}/a2a_grpc.js";
import { Role, type SendMessageResponse, type StreamResponse, type Task } from "${V03}/a2a_pb.js";
${PRELUDE}
export const client = createA2AServiceJsonRpcClient({ url: "http://localhost:1/a2a" });
export const rest = createA2AServiceRestClient({ url: "http://localhost:1/a2a" });
export const grpc = createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: "http://localhost:1" }), {});

export const sent = client.sendMessage({ request: { messageId: "m", role: Role.USER, content: [] } });
export const task = rest.getTask({ name: "tasks/t" });

export async function events(): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of client.sendStreamingMessage({ request: { messageId: "m", role: Role.USER, content: [] } })) {
    const isStreamResponse: Expect<Equals<typeof ev, StreamResponse>> = true;
    if (isStreamResponse) out.push(ev);
  }
  for await (const ev of grpc.taskSubscription({ name: "tasks/t" })) out.push(ev);
  return out;
}

export type Checks = [
  Expect<Equals<typeof sent, Promise<SendMessageResponse>>>,
  Expect<Equals<typeof task, Promise<Task>>>,
  Expect<Equals<Elem<ReturnType<typeof client.sendStreamingMessage>>, StreamResponse>>,
  // The JSON-RPC client also names its calls on JSON (the version bridge's one-pass path), as a typed property.
  Expect<Equals<typeof client, A2AServiceClient & { readonly jsonrpc: JsonRpcCalls }>>,
  Expect<Equals<typeof rest, A2AServiceClient>>,
  Expect<Equals<typeof grpc, A2AServiceClient>>,
  Expect<Equals<keyof typeof rest, Exclude<keyof typeof client, "jsonrpc">>>,
  Expect<Equals<keyof typeof grpc, Exclude<keyof typeof client, "jsonrpc">>>,
];
export type JsonRpcClient = typeof client;
export type RestClient = typeof rest;
export type GrpcClient = typeof grpc;
`,
  "v10-handler": handlerSnippet("v10"),
  "v03-handler": handlerSnippet("v03"),
  // A method left out is allowed: the server answers UnsupportedOperationError for it.
  "v10-handler-without-push-configs": handlerSnippet("v10", { deleteTaskPushNotificationConfig: null }),
  "v03-handler-without-card": handlerSnippet("v03", { getAgentCard: null }),
};

interface Bad {
  readonly source: string;
  /** Accepted TS error codes on the marked line (any one of them). */
  readonly codes: readonly number[];
  /** Text the marked diagnostic's message chain must contain. */
  readonly mentions?: string;
}

const bad: Record<string, Bad> = {
  "v10-getTask-with-send-message-shape": {
    source: clientSnippet(
      "v10",
      `return client.getTask({ message: { messageId: "m", role: Role.USER, parts: [] } }); ${ERROR_MARK}`,
    ),
    codes: [2353],
    mentions: "message",
  },
  "v10-getTask-with-numeric-id": {
    source: clientSnippet("v10", `return client.getTask({ id: 5 }); ${ERROR_MARK}`),
    codes: [2322],
    mentions: "number",
  },
  "v10-taskSubscription-does-not-exist": {
    source: clientSnippet("v10", `return client.taskSubscription({ id: "t" }); ${ERROR_MARK}`),
    codes: [2339, 2551],
    mentions: "taskSubscription",
  },
  "v03-listTasks-does-not-exist": {
    source: clientSnippet("v03", `return client.listTasks({}); ${ERROR_MARK}`),
    codes: [2339, 2551],
    mentions: "listTasks",
  },
  "v03-getTask-with-send-message-shape": {
    source: clientSnippet(
      "v03",
      `return client.getTask({ request: { messageId: "m", role: Role.USER, content: [] } }); ${ERROR_MARK}`,
    ),
    codes: [2353],
    mentions: "request",
  },
  "v10-send-v03-request": {
    source: `
import { create } from "@bufbuild/protobuf";
import { createA2AServiceJsonRpcClient } from "${V10}/a2a_jsonrpc.js";
import { Role as Role03, SendMessageRequestSchema as SendMessageRequestSchema03 } from "${V03}/a2a_pb.js";

const client = createA2AServiceJsonRpcClient({ url: "http://localhost:1/a2a" });
const request03 = create(SendMessageRequestSchema03, { request: { messageId: "m", role: Role03.USER, content: [] } });
export const sent = client.sendMessage(request03); ${ERROR_MARK}
`,
    codes: [2345],
    mentions: "a2a.v1.SendMessageRequest",
  },
  "v10-handler-getTask-returns-string": {
    source: handlerSnippet("v10", { getTask: `async getTask(req) { ${ERROR_MARK}\n    return req.id;\n  }` }),
    codes: [2322],
    mentions: "string",
  },
  "v10-handler-stream-returns-promise": {
    source: handlerSnippet("v10", {
      sendStreamingMessage: `async sendStreamingMessage() { ${ERROR_MARK}\n    return { payload: { case: "message", value: { messageId: "m", role: Role.AGENT, parts: [] } } };\n  }`,
    }),
    codes: [2322],
    mentions: "AsyncIterable",
  },
  "v03-handler-with-v10-method-names": {
    // listTasks is no RPC of v0.3: an object literal may not carry it.
    source: handlerSnippet("v03", { listTasks: `async listTasks() { ${ERROR_MARK}\n    return {};\n  }` }),
    codes: [2353],
    mentions: "listTasks",
  },
};

// ----------------------------------------------------------------- program

const snippetPath = (name: string) => join(snippetDir, `__stub_types_${name}.ts`);

let program: ts.Program;
let byFile: Map<string, ts.Diagnostic[]>;
let generatedFiles: string[];

function format(diags: readonly ts.Diagnostic[]): string {
  if (diags.length === 0) return "";
  return ts.formatDiagnostics(diags, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => repoRoot,
    getNewLine: () => "\n",
  });
}

beforeAll(() => {
  const configErrors: ts.Diagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(repoRoot, "tsconfig.samples.json"),
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => configErrors.push(d),
    },
  );
  if (!parsed || configErrors.length > 0 || parsed.errors.length > 0) {
    throw new Error(`tsconfig.samples.json: ${format([...configErrors, ...(parsed?.errors ?? [])])}`);
  }
  generatedFiles = parsed.fileNames.map((f) => resolve(f));

  const virtual = new Map<string, string>();
  for (const [name, src] of Object.entries(good)) virtual.set(snippetPath(name), src);
  for (const [name, b] of Object.entries(bad)) virtual.set(snippetPath(name), b.source);
  for (const p of virtual.keys()) if (existsSync(p)) throw new Error(`snippet path exists on disk: ${p}`);

  const host = ts.createCompilerHost(parsed.options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(resolve(f)) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(resolve(f)) ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, onError, create) => {
    const text = virtual.get(resolve(f));
    return text !== undefined
      ? ts.createSourceFile(f, text, lang, true)
      : getSourceFile.call(host, f, lang, onError, create);
  };

  program = ts.createProgram({ rootNames: [...generatedFiles, ...virtual.keys()], options: parsed.options, host });
  byFile = new Map();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const key = d.file ? resolve(d.file.fileName) : "<global>";
    byFile.set(key, [...(byFile.get(key) ?? []), d]);
  }
}, 60_000);

const diagnosticsOf = (file: string) => byFile.get(resolve(file)) ?? [];

/** Property names of an exported type alias of a snippet. */
function propertiesOf(snippet: string, typeName: string): string[] {
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(snippetPath(snippet));
  if (!sf) throw new Error(`no source file for ${snippet}`);
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  const alias = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === typeName);
  if (!alias) throw new Error(`${snippet} exports no ${typeName}`);
  return checker
    .getPropertiesOfType(checker.getDeclaredTypeOfSymbol(alias))
    .map((p) => p.name)
    .sort();
}

// ------------------------------------------------------------------- tests

describe("generated stub types", () => {
  it("the generated code compiles under strict with no diagnostics", () => {
    expect(generatedFiles.length).toBeGreaterThanOrEqual(14);
    expect(generatedFiles.some((f) => f.endsWith("v1.0.1/a2a_rest.ts"))).toBe(true);
    expect(program.getCompilerOptions().strict).toBe(true);
    const diags = [...(byFile.get("<global>") ?? []), ...generatedFiles.flatMap(diagnosticsOf)];
    expect(format(diags)).toBe("");
  });

  it.each(Object.keys(good))("correct usage compiles: %s", (name) => {
    expect(format(diagnosticsOf(snippetPath(name)))).toBe("");
  });

  it.each([
    ["v10-clients", V10_METHODS],
    ["v03-clients", V03_METHODS],
  ] as const)(
    "%s: JSON-RPC, REST and gRPC clients have exactly the RPC methods (JSON-RPC: and its jsonrpc calls)",
    (snippet, methods) => {
      const expected = [...methods].sort();
      expect(propertiesOf(snippet, "JsonRpcClient")).toEqual([...expected, "jsonrpc"].sort());
      expect(propertiesOf(snippet, "RestClient")).toEqual(expected);
      expect(propertiesOf(snippet, "GrpcClient")).toEqual(expected);
    },
  );

  it("the handler fixtures implement every RPC", () => {
    expect(Object.keys(V10_HANDLER).sort()).toEqual([...V10_METHODS].sort());
    expect(Object.keys(V03_HANDLER).sort()).toEqual([...V03_METHODS].sort());
  });

  it.each(Object.keys(bad))("wrong usage fails to compile: %s", (name) => {
    const spec = bad[name]!;
    const file = snippetPath(name);
    const diags = diagnosticsOf(file);
    const shown = format(diags) || "(no diagnostics)";
    expect(diags.length, `${name} compiled without errors`).toBeGreaterThan(0);

    const lines = spec.source.split("\n");
    const marked = new Set(lines.flatMap((l, i) => (l.includes(ERROR_MARK) ? [i] : [])));
    expect(marked.size, `${name} marks no line`).toBe(1);
    const lineOf = (d: ts.Diagnostic) =>
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;

    // Every error is on the marked line: the snippet fails for that reason only.
    expect(diags.filter((d) => !marked.has(lineOf(d))).length, shown).toBe(0);
    const hit = diags.find((d) => marked.has(lineOf(d)) && spec.codes.includes(d.code));
    expect(hit, `${name}: expected TS${spec.codes.join("/TS")} on the marked line\n${shown}`).toBeDefined();
    if (spec.mentions) expect(ts.flattenDiagnosticMessageText(hit!.messageText, "\n"), shown).toContain(spec.mentions);
  });
});
