/**
 * Calls a running agent's HTTP+JSON interface and checks each exchange against an OpenAPI 3.1 document. The rule
 * of one check:
 *
 *   - the operation is the document's `paths[template][method]`; the test names the template, the helper expands
 *     it with the path values (each percent-encoded as one segment);
 *   - the request: every path, query and header parameter sent is declared by the operation (or its path item),
 *     the content type sent is one of the request body's, and the body validates against its schema (unless the
 *     call says it is meant to be off the document, as a call that expects InvalidParams is);
 *   - the response: the response object is `responses[status]` (else `NXX`, else `default`), `$ref`s to
 *     components/responses followed; the response's content type (parameters dropped) is one of its content's;
 *     a JSON body validates against that media type's schema; an SSE body (text/event-stream) validates as the
 *     array of its events, and each event's data, parsed as JSON, against the `contentSchema` of the items'
 *     `data` (as the document models SSE, after OpenAPI 3.2);
 *   - every A2A header of the response (`A2A-…`, `X-A2A-…`) is declared in the response object's headers;
 *   - an error response whose object lists its catalog entries (`x-a2a-errors`) names one of them: the
 *     ErrorInfo reason of the body (v1.0: `error.details[]`) is an entry's reason; a body without a reason
 *     (v1.0: `error.status`) matches an entry without one by gRPC status; a v0.3 body (`code`) by JSON-RPC code.
 *
 * Schemas are checked as written and closed (doc-schemas.ts). Every operationId called is recorded, so a test
 * can compare the set with the document's. Each call is bounded by STEP_MS.
 */
import { at, docSchemas, isObject, object, type DocSchemas, type JsonObject } from "./doc-schemas.js";
import { readSse, type RawSseEvent } from "./sse-read.js";

/** How long one call may take, stream included (a loaded machine is slow). */
const STEP_MS = 20_000;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface RestCall {
  readonly method: "GET" | "POST" | "DELETE";
  /** The path template as the document writes it, e.g. `/tasks/{id}:cancel`. */
  readonly template: string;
  readonly path?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** Headers beyond the version's own (content type and A2A-Version). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** The request is off the document on purpose (the call expects the agent to refuse it). */
  readonly offDocument?: true;
  /** Send this text as the body (implies offDocument). */
  readonly rawBody?: string;
  /** For a stream: run once the first event has arrived (e.g. cancel the task, so the stream ends). */
  readonly afterFirstEvent?: () => Promise<void>;
}

export interface RestReply {
  readonly status: number;
  readonly contentType: string;
  /** The response headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, or for a stream the parsed data of each event. */
  readonly json: unknown;
  readonly events: readonly RawSseEvent[];
  /** Where the exchange and the document disagree; empty when they agree. */
  readonly problems: readonly string[];
}

export interface OpenApiLive {
  call(c: RestCall): Promise<RestReply>;
  /** The operationIds of the document. */
  readonly operationIds: readonly string[];
  /** The operationIds called so far. */
  readonly called: ReadonlySet<string>;
}

export interface OpenApiLiveOptions {
  /** The agent's HTTP+JSON base URL (the document's server URL is relative: "/"). */
  readonly base: string;
  /** Headers every call sends: the version's content type, A2A-Version. */
  readonly headers: Readonly<Record<string, string>>;
  /** The id the document's schemas are registered under (one per document). */
  readonly id: string;
  /**
   * Headers that carry credentials (an API key): the agent card's security schemes declare them, not the
   * document, so they are sent without being checked against its parameters.
   */
  readonly credentialHeaders?: readonly string[];
}

/** The operations of a document as operationId → [template, method]. */
function operationsOf(doc: JsonObject): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const [template, item] of Object.entries(object(doc["paths"], "paths"))) {
    for (const method of METHODS) {
      const op = object(item, template)[method];
      if (isObject(op)) out.set(String(op["operationId"]), [template, method]);
    }
  }
  return out;
}

/** Follows a local `$ref` (`#/components/...`) to its tokens; other objects stay where they are. */
function deref(doc: JsonObject, tokens: string[]): string[] {
  const node = at(doc, tokens);
  const ref = isObject(node) ? node["$ref"] : undefined;
  if (typeof ref !== "string") return tokens;
  if (!ref.startsWith("#/")) throw new Error(`${tokens.join("/")}: non-local $ref ${ref}`);
  return deref(
    doc,
    ref
      .slice(2)
      .split("/")
      .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~")),
  );
}

/** The parameters an operation declares (its own and its path item's), as "in:name" (header names lowercased). */
function declaredParameters(doc: JsonObject, opTokens: string[]): Set<string> {
  const out = new Set<string>();
  for (const owner of [opTokens, opTokens.slice(0, -1)]) {
    const list = object(at(doc, owner), owner.join("/"))["parameters"];
    if (!Array.isArray(list)) continue;
    for (const i of list.keys()) {
      const p = object(at(doc, deref(doc, [...owner, "parameters", String(i)])), `${owner.join("/")} parameter`);
      const name = String(p["name"]);
      out.add(`${String(p["in"])}:${p["in"] === "header" ? name.toLowerCase() : name}`);
    }
  }
  return out;
}

const mediaType = (contentType: string) => contentType.split(";")[0]!.trim().toLowerCase();

/** The tokens of the response object for `status`: exact, then `NXX`, then `default`. */
function responseTokens(doc: JsonObject, opTokens: string[], status: number): string[] | undefined {
  const responses = object(at(doc, [...opTokens, "responses"]), `${opTokens.join("/")}/responses`);
  const key = [String(status), `${String(status)[0]}XX`, "default"].find((k) => k in responses);
  return key === undefined ? undefined : deref(doc, [...opTokens, "responses", key]);
}

/** Whether an error body names the catalog entry `e` of its response object (see the header). */
function names(body: unknown, e: JsonObject): boolean {
  if (!isObject(body)) return false;
  if (typeof body["code"] === "number") return e["jsonrpcCode"] === body["code"];
  const error = isObject(body["error"]) ? body["error"] : {};
  const details = Array.isArray(error["details"]) ? error["details"].filter(isObject) : [];
  const reasons: unknown[] = details.map((d) => d["reason"]).filter((r) => typeof r === "string");
  if (reasons.length > 0) return reasons.includes(e["reason"]);
  return (e["reason"] === undefined || e["reason"] === null) && e["grpcStatus"] === error["status"];
}

/** The problems of an error body against the catalog entries of its response object, if it lists any. */
function checkCatalog(response: JsonObject, body: unknown, where: string): string[] {
  const catalog = response["x-a2a-errors"];
  if (!Array.isArray(catalog) || catalog.filter(isObject).some((e) => names(body, e))) return [];
  const listed = catalog.filter(isObject).map((e) => String(e["name"]));
  return [`${where}: the error body names none of x-a2a-errors (${listed.join(", ")}): ${JSON.stringify(body)}`];
}

/** What the checks of one document read. */
interface RestDoc {
  readonly document: JsonObject;
  readonly schemas: DocSchemas;
  readonly options: OpenApiLiveOptions;
}

/** The problems of the request `c` against the operation at `opTokens`. */
function checkRequest(d: RestDoc, c: RestCall, opTokens: string[], where: string): string[] {
  const problems: string[] = [];
  const declared = declaredParameters(d.document, opTokens);
  const headers = { ...d.options.headers, ...c.headers };
  const sent = [
    ...Object.keys(c.path ?? {}).map((n) => `path:${n}`),
    ...Object.keys(c.query ?? {}).map((n) => `query:${n}`),
    ...Object.keys(headers)
      .map((n) => n.toLowerCase())
      .filter((n) => n !== "content-type" && !(d.options.credentialHeaders ?? []).includes(n))
      .map((n) => `header:${n}`),
  ];
  for (const s of sent) if (!declared.has(s)) problems.push(`${where}: parameter ${s} is not declared`);
  if (c.body === undefined || c.offDocument || c.rawBody !== undefined) return problems;
  const type = mediaType(String(headers["content-type"] ?? ""));
  const content = [...opTokens, "requestBody", "content"];
  const listed = Object.keys(object(at(d.document, content), `${where} requestBody`));
  if (!listed.includes(type)) return [...problems, `${where}: request content type ${type} not in ${listed}`];
  return [...problems, ...d.schemas.check([...content, type, "schema"], c.body, `${where} request`)];
}

/** Sends `c` to the agent: the template expanded with the path values, the query, the body. */
function send(d: RestDoc, c: RestCall): Promise<Response> {
  const path = c.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = c.path?.[name];
    if (value === undefined) throw new Error(`${c.template}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const query = c.query ? `?${new URLSearchParams(c.query)}` : "";
  const body = c.rawBody ?? (c.body === undefined ? undefined : JSON.stringify(c.body));
  return fetch(`${d.options.base}${path}${query}`, {
    method: c.method,
    headers: { ...d.options.headers, ...c.headers },
    signal: AbortSignal.timeout(STEP_MS),
    ...(body === undefined ? {} : { body }),
  });
}

/** The events of an SSE response, running afterFirstEvent once the first one is in. */
async function events(res: Response, c: RestCall): Promise<RawSseEvent[]> {
  const out: RawSseEvent[] = [];
  for await (const e of readSse(res.body!)) {
    out.push(e);
    if (out.length === 1) await c.afterFirstEvent?.();
  }
  return out;
}

type Reply = Omit<RestReply, "problems">;

/** The problems of a response against the operation at `opTokens` (see the header). */
function checkResponse(d: RestDoc, opTokens: string[], reply: Reply, text: string, where: string): string[] {
  const response = responseTokens(d.document, opTokens, reply.status);
  if (!response) return [`${where}: no response object for the status`];
  const responseObject = object(at(d.document, response), where);
  const declared = Object.keys(isObject(responseObject["headers"]) ? responseObject["headers"] : {});
  const undeclared = Object.keys(reply.headers)
    .filter((h) => /^(x-)?a2a-/.test(h) && !declared.some((name) => name.toLowerCase() === h))
    .map((h) => `${where}: response header ${h} is not declared (${response.join("/")} declares ${declared})`);
  return [...undeclared, ...checkBody(d, response, reply, text, where)];
}

/** The problems of a response's body against its response object (at `response`). */
function checkBody(d: RestDoc, response: string[], reply: Reply, text: string, where: string): string[] {
  const responseObject = object(at(d.document, response), where);
  const content = responseObject["content"];
  const type = mediaType(reply.contentType);
  if (!isObject(content)) return text ? [`${where}: a body, none listed`] : [];
  if (!(type in content)) return [`${where}: content type ${type} not in ${Object.keys(content)}`];
  const schema = [...response, "content", type, "schema"];
  if (type !== "text/event-stream") {
    return [...d.schemas.check(schema, reply.json, where), ...checkCatalog(responseObject, reply.json, where)];
  }
  const data = [...schema, "items", "properties", "data", "contentSchema"];
  const each = reply.events.flatMap((e, i) => d.schemas.check(data, JSON.parse(e.data), `${where} event ${i}`));
  return [...d.schemas.check(schema, reply.events, `${where} events`), ...each];
}

export function openApiLive(doc: unknown, options: OpenApiLiveOptions): OpenApiLive {
  const document = object(doc, options.id);
  const d: RestDoc = { document, schemas: docSchemas(document, options.id), options };
  const operations = operationsOf(document);
  const called = new Set<string>();
  return {
    operationIds: [...operations.keys()],
    called,
    async call(c) {
      const where = `${c.method} ${c.template}`;
      const op = object(object(document["paths"], "paths")[c.template] ?? {}, where)[c.method.toLowerCase()];
      if (!isObject(op)) throw new Error(`${where}: no such operation in ${options.id}`);
      called.add(String(op["operationId"]));
      const opTokens = ["paths", c.template, c.method.toLowerCase()];
      const problems = checkRequest(d, c, opTokens, where);
      const res = await send(d, c);
      const contentType = res.headers.get("content-type") ?? "";
      const sse = mediaType(contentType) === "text/event-stream";
      const streamed = sse ? await events(res, c) : [];
      const text = sse ? "" : await res.text();
      const json = sse ? streamed.map((e) => JSON.parse(e.data)) : text && JSON.parse(text);
      const headers = Object.fromEntries(res.headers);
      const reply = { status: res.status, contentType, headers, json, events: streamed };
      return {
        ...reply,
        problems: [...problems, ...checkResponse(d, opTokens, reply, text, `${where} → ${res.status}`)],
      };
    },
  };
}
