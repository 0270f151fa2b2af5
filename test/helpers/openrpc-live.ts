/**
 * Calls a running agent's JSON-RPC interface and checks each exchange against an OpenRPC 1.3 document. The rule
 * of one check:
 *
 *   - the method is the document's `methods[]` entry of that name (a call may name a method the document does
 *     not list, to see the protocol errors);
 *   - the request (by-name params): every param sent is declared, every required one is sent, and each value
 *     validates against its content descriptor's schema (unless the call says it is off the document);
 *   - the response: HTTP 200; application/json, or text/event-stream for a method marked `x-a2a-streaming`
 *     that answers with a stream (each event's data is one JSON-RPC response); each JSON-RPC response is
 *     `jsonrpc: "2.0"`, the request's id, and exactly one of result and error;
 *   - a result validates against the method's result schema; an error's code is one of the method's errors or,
 *     failing that, of the document's `components.errors`; when that error object of the document carries
 *     `data`, the agent's error carries the same data.
 *
 * Schemas are checked as written and closed (doc-schemas.ts). Every method called is recorded.
 */
import { isDeepStrictEqual } from "node:util";
import { at, docSchemas, isObject, object, type DocSchemas, type JsonObject } from "./doc-schemas.js";
import { readSse } from "./sse-read.js";

/** How long one call may take, stream included. */
const STEP_MS = 20_000;

export interface RpcCall {
  readonly method: string;
  readonly params?: Readonly<Record<string, unknown>>;
  /** The params are off the document on purpose (the call expects InvalidParams). */
  readonly offDocument?: true;
  /** Send this text as the HTTP body instead of a request made of method and params. */
  readonly rawBody?: string;
  /** The id the answer carries, when not the request's (a body refused unread is answered with id null). */
  readonly responseId?: null;
  /** Headers beyond the content type and the version's own. */
  readonly headers?: Readonly<Record<string, string>>;
  /** For a stream: run once the first event has arrived. */
  readonly afterFirstEvent?: () => Promise<void>;
}

export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export interface RpcReply {
  readonly contentType: string;
  /** Each JSON-RPC response (one, or one per event of a stream). */
  readonly responses: readonly JsonObject[];
  /** The results of the responses that carry one. */
  readonly results: readonly unknown[];
  /** The first error of the responses, if any. */
  readonly error: RpcError | undefined;
  readonly problems: readonly string[];
}

export interface OpenRpcLive {
  call(c: RpcCall): Promise<RpcReply>;
  readonly methods: readonly string[];
  readonly called: ReadonlySet<string>;
}

export interface OpenRpcLiveOptions {
  readonly url: string;
  /** Headers every call sends (A2A-Version for 1.0). */
  readonly headers: Readonly<Record<string, string>>;
  readonly id: string;
}

/** Follows a local `$ref` to its tokens. */
function deref(doc: JsonObject, tokens: string[]): string[] {
  const node = at(doc, tokens);
  const ref = isObject(node) ? node["$ref"] : undefined;
  if (typeof ref !== "string") return tokens;
  return deref(doc, ref.slice(2).split("/"));
}

/** The tokens of a list's entries (each $ref followed). */
const entries = (doc: JsonObject, tokens: string[]): string[][] => {
  const list = at(doc, tokens);
  return Array.isArray(list) ? [...list.keys()].map((i) => deref(doc, [...tokens, String(i)])) : [];
};

let nextId = 1;

/** The id a response to `rawBody` carries: the body's own when it is a JSON object with one, else null. */
function rawId(rawBody: string): unknown {
  try {
    const body: unknown = JSON.parse(rawBody);
    return isObject(body) && "id" in body ? body["id"] : null;
  } catch {
    return null;
  }
}

/** What the checks of one document read. */
interface RpcDoc {
  readonly document: JsonObject;
  readonly schemas: DocSchemas;
  /** The tokens of each entry of components.errors. */
  readonly documentErrors: readonly string[][];
}

const nameAt = (d: RpcDoc, tokens: string[]) => String(object(at(d.document, tokens), tokens.join("/"))["name"]);

/** The problems of the params of `c` against the params of `method`. */
function checkParams(d: RpcDoc, c: RpcCall, method: string[]): string[] {
  const params = entries(d.document, [...method, "params"]);
  const problems: string[] = [];
  const sent = c.params ?? {};
  for (const p of params) {
    const descriptor = object(at(d.document, p), p.join("/"));
    const name = String(descriptor["name"]);
    if (c.offDocument) continue;
    if (name in sent) problems.push(...d.schemas.check([...p, "schema"], sent[name], `${c.method} ${name}`));
    else if (descriptor["required"] === true) problems.push(`${c.method}: required param ${name} not sent`);
  }
  const declared = new Set(params.map((p) => nameAt(d, p)));
  for (const name of Object.keys(sent)) {
    if (!declared.has(name)) problems.push(`${c.method}: param ${name} not declared`);
  }
  return problems;
}

/** The problems of an error object against the method's and the document's errors. */
function checkError(d: RpcDoc, method: string[] | undefined, error: JsonObject, where: string): string[] {
  const listed = [...(method ? entries(d.document, [...method, "errors"]) : []), ...d.documentErrors];
  const entry = listed.find((e) => object(at(d.document, e), e.join("/"))["code"] === error["code"]);
  if (!entry) return [`${where}: error code ${String(error["code"])} is not in the document`];
  const expected = object(at(d.document, entry), entry.join("/"))["data"];
  if (expected === undefined || isDeepStrictEqual(error["data"], expected)) return [];
  return [`${where}: ${entry.join("/")} data ${JSON.stringify(expected)}, got ${JSON.stringify(error["data"])}`];
}

/** The problems of one JSON-RPC response (to request id `id`) against `method` (undefined: unlisted). */
function checkResponse(d: RpcDoc, method: string[] | undefined, id: unknown, r: JsonObject, where: string) {
  const problems: string[] = [];
  if (r["jsonrpc"] !== "2.0") problems.push(`${where}: jsonrpc is ${JSON.stringify(r["jsonrpc"])}`);
  if (r["id"] !== id) problems.push(`${where}: id ${JSON.stringify(r["id"])}, sent ${JSON.stringify(id)}`);
  if ("result" in r === "error" in r) return [...problems, `${where}: not exactly one of result and error`];
  if ("error" in r) return [...problems, ...checkError(d, method, object(r["error"], `${where} error`), where)];
  if (!method) return [...problems, `${where}: a result for a method the document does not list`];
  return [...problems, ...d.schemas.check([...deref(d.document, [...method, "result"]), "schema"], r["result"], where)];
}

/** The JSON-RPC responses of `res`: its body, or the data of each event of a stream. */
async function responsesOf(res: Response, c: RpcCall): Promise<JsonObject[]> {
  if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    return [object(JSON.parse(await res.text()), `${c.method} response`)];
  }
  const out: JsonObject[] = [];
  for await (const e of readSse(res.body!)) {
    out.push(object(JSON.parse(e.data), `${c.method} event ${out.length}`));
    if (out.length === 1) await c.afterFirstEvent?.();
  }
  return out;
}

/** The problems of the transport: HTTP status, content type, streaming as the method is marked. */
function checkTransport(d: RpcDoc, c: RpcCall, method: string[] | undefined, res: Response, succeeded: boolean) {
  const problems: string[] = [];
  const contentType = res.headers.get("content-type") ?? "";
  if (res.status !== 200) problems.push(`${c.method}: HTTP ${res.status}`);
  const streaming = method !== undefined && object(at(d.document, method), c.method)["x-a2a-streaming"] === true;
  const sse = contentType.startsWith("text/event-stream");
  if (sse && !streaming) problems.push(`${c.method}: a stream from a method not marked x-a2a-streaming`);
  if (streaming && succeeded && !sse) problems.push(`${c.method}: x-a2a-streaming, answered without a stream`);
  if (!sse && !contentType.startsWith("application/json")) problems.push(`${c.method}: content type ${contentType}`);
  return problems;
}

export function openRpcLive(doc: unknown, options: OpenRpcLiveOptions): OpenRpcLive {
  const document = object(doc, options.id);
  const errors = object(at(document, ["components", "errors"]), "components.errors");
  const d: RpcDoc = {
    document,
    schemas: docSchemas(document, options.id),
    documentErrors: Object.keys(errors).map((name) => ["components", "errors", name]),
  };
  const methods = entries(document, ["methods"]);
  const called = new Set<string>();
  return {
    methods: methods.map((m) => nameAt(d, m)),
    called,
    async call(c) {
      const method = methods.find((m) => nameAt(d, m) === c.method);
      if (method) called.add(c.method);
      const sentId = c.rawBody === undefined ? nextId++ : rawId(c.rawBody);
      const id = c.responseId === null ? null : sentId;
      const problems = method ? checkParams(d, c, method) : [];
      const res = await fetch(options.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers, ...c.headers },
        body: c.rawBody ?? JSON.stringify({ jsonrpc: "2.0", id: sentId, method: c.method, params: c.params ?? {} }),
        signal: AbortSignal.timeout(STEP_MS),
      });
      const responses = await responsesOf(res, c);
      problems.push(
        ...checkTransport(
          d,
          c,
          method,
          res,
          responses.some((r) => "result" in r),
        ),
      );
      for (const [i, r] of responses.entries()) {
        problems.push(...checkResponse(d, method, id, r, `${c.method} response ${i}`));
      }
      const first = responses.map((r) => r["error"]).find(isObject);
      const error = first && { code: Number(first["code"]), message: String(first["message"]), data: first["data"] };
      const results = responses.filter((r) => "result" in r).map((r) => r["result"]);
      return { contentType: res.headers.get("content-type") ?? "", responses, results, error, problems };
    },
  };
}
