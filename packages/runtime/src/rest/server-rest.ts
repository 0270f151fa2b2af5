/**
 * HTTP+JSON binding, server side, built on the generated route table.
 *
 * A request message is assembled from, in order: the body (the rule's `body`:
 * "*" is the whole message, a field name is that field, or, for an operation in
 * restWrappedBodies, that field wrapped as `{"config": …}`), the query (camelCase
 * JSON names, repeated by repetition or comma), then the path variables, which
 * win over both (so a `/{tenant}` prefix beats a tenant in the body). The
 * answer is the response message (or its `response_body` field) as ProtoJSON;
 * a stream is text/event-stream whose `data:` lines are bare messages, and
 * starts only with its first event (a failure before it is the ordinary error
 * reply, streamStart.rest `first-event` in both versions; one after it is an
 * `error` event, then the end). Errors
 * carry the HTTP status and a google.rpc.Status-shaped body with an ErrorInfo
 * (see a2a-error.ts).
 *
 * Checked in this order: the version (before the route is looked up: a
 * version the interface does not speak is VersionNotSupportedError, never a
 * 404 or 405); the path: unmatched paths are 404, wrong methods 405 with Allow,
 * and a path with a raw "." or ".." segment 400 (a "/" doubled right after
 * the base path, a base URL written with a trailing slash, "/rest/" +
 * "/tasks/1", counts once); the Content-Type of a route that takes a body,
 * empty body or not (restRequestContentTypes: ContentTypeNotSupportedError,
 * before the body is read; a POST without a JSON type is one any web page
 * can send); the agent card's capabilities and required extensions
 * (call-context.ts, card-rules.ts); every answer to a call that passed them
 * names the activated extensions in the extensions header. The assembled
 * request is checked against the JSON limits (limits.ts) before it is
 * decoded: InvalidParams (400).
 *
 * Every JSON answer to a GET (GetTask, ListTasks, the push configs, their
 * errors) carries `Cache-Control: no-store`: it is one caller's, and a shared
 * cache in front that keys by URL alone (not by an API key header, a query
 * key or a cookie) must not hand it to another. A stream's is `no-cache`.
 */
import { fromJson, type DescService, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { OperationInfo } from "../core/definition.js";
import type { ProtocolTables } from "../core/protocol-tables.js";
import { messageJson } from "../core/protojson-write.js";
import { headerRecord } from "../core/records.js";
import { A2AError, toRestError, withErrorHeaders } from "../core/a2a-error.js";
import { errorReporter } from "../core/report-error.js";
import {
  admitHttpCall,
  checkHttpVersion,
  echoingExtensions,
  lazyContext,
  tenantOf,
  type Admitted,
  type Seen,
} from "../http/call-context.js";
import { cardRulesOf } from "../card/card-rules.js";
import { compilePathMatcher } from "../http/path-matcher.js";
import type { Route } from "../core/route-types.js";
import { unmatchedResponse } from "../http/unmatched.js";
import {
  BodyAbortedError,
  BodyTooLargeError,
  DEFAULT_MAX_BODY,
  type A2aServerOptions,
  type CoreRequest,
  type CoreResponse,
} from "../core/server-types.js";
import { encodeSseEvent } from "../http/sse.js";
import { DEFAULT_KEEP_ALIVE_MS, sseLines, startStream, withKeepAlive } from "../core/server-stream.js";
import { createInvoker, invalidRequest, type Invoker } from "../core/invoke.js";
import { jsonRequestProblem } from "../core/json-request-check.js";
import { jsonLimitProblem } from "../core/limits.js";
import { contentTypeCheck, type ContentTypeCheck } from "../http/request-content-type.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** What serving a request needs, built once per server. */
interface ServerCtx {
  readonly def: A2aServerOptions["definition"];
  readonly options: A2aServerOptions;
  readonly base: string;
  readonly matcher: ReturnType<typeof compilePathMatcher>;
  readonly report: ReturnType<typeof errorReporter>;
  readonly cardRules: ReturnType<typeof cardRulesOf>;
  readonly keepAliveMs: number;
  readonly errorHeaders: Readonly<Record<string, string>>;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly refuseContentType: ContentTypeCheck;
  readonly invoke: Invoker;
}

export function createRestHandler<S extends DescService>(
  options: A2aServerOptions<S>,
  basePath = "",
): (req: CoreRequest) => Promise<CoreResponse> {
  const def = options.definition;
  const c: ServerCtx = {
    def,
    options: options as unknown as A2aServerOptions,
    base: basePath.replace(/\/+$/, ""),
    matcher: compilePathMatcher([...def.routes, ...def.aliases]),
    report: errorReporter(def, "HTTP+JSON", options.onError),
    cardRules: cardRulesOf(def, options),
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    errorHeaders: { "content-type": def.contentTypes.rest.error },
    responseHeaders: { "content-type": def.contentTypes.rest.response },
    refuseContentType: restContentTypeCheck(def),
    invoke: createInvoker(options.handler, options.interceptors, def),
  };
  // A GET's answer is one caller's (see the header); other methods pay no extra step.
  return echoingExtensions(def, options, (req, seen) =>
    req.method === "GET" || req.method === "HEAD" ? serve(c, req, seen).then(notStored) : serve(c, req, seen),
  );
}

const NO_STORE = { "cache-control": "no-store" };

/** A GET's answer (a task, a list, an error) as no cache keeps it; a stream keeps its own no-cache. */
const notStored = (res: CoreResponse): CoreResponse =>
  typeof res.body === "string"
    ? { status: res.status, headers: headerRecord(res.headers, NO_STORE), body: res.body }
    : res;

function fail(c: ServerCtx, e: unknown, operation?: string): CoreResponse {
  c.report(e, operation);
  const { status, body } = toRestError(c.def, e);
  return { status, headers: withErrorHeaders(c.errorHeaders, e), body: JSON.stringify(body) };
}

/** The stream once its first event is ready; an error before that is the ordinary error reply. */
async function streamResponse(c: ServerCtx, op: OperationInfo, events: AsyncIterable<Message>): Promise<CoreResponse> {
  let started: AsyncIterable<Message>;
  try {
    started = await startStream(events);
  } catch (e) {
    return fail(c, e, op.name);
  }
  const errorEvent = (e: unknown) => {
    c.report(e, op.name);
    return JSON.stringify(toRestError(c.def, e).body);
  };
  return {
    status: 200,
    headers: { "content-type": c.def.contentTypes.rest.stream, "cache-control": "no-cache" },
    body: withKeepAlive(
      sseLines(
        started,
        (ev) => encodeSseEvent(JSON.stringify(messageJson(c.def, op.method.output, ev))),
        (e) => encodeSseEvent(errorEvent(e), { event: "error" }),
      ),
      c.keepAliveMs,
    ),
  };
}

/**
 * Serves one request; `seen.admitted` is set once the call passed admitCall. Order: the version (before the
 * route is looked up, so a version the interface does not speak is never a 404 or 405), the path and route, the
 * Content-Type of a route that takes a body, the card and extensions, then the body.
 */
async function serve(c: ServerCtx, req: CoreRequest, seen: Seen): Promise<CoreResponse> {
  const { def } = c;
  let version: string;
  try {
    version = checkHttpVersion(def, req);
  } catch (e) {
    return fail(c, e);
  }
  const path = routePath(req.path, c.base);
  // Paths are routed as sent. A raw "." or ".." segment (clients resolve them, RFC 3986 §5.2.4) is refused
  // rather than resolved here, so a proxy that checks the raw prefix sees what we route (on node:http: a fetch
  // runtime's URL parser resolves them before the adapter sees the path, fetch-handler.ts).
  if (hasDotSegment(req.path))
    return fail(c, new A2AError("InvalidParamsError", `dot segments are not allowed in ${req.path}`));
  const m = c.matcher.match(req.method, path);
  if (m.status === 400) return fail(c, new A2AError("InvalidParamsError", m.reason));
  if (m.status !== 200) {
    const u = unmatchedResponse(m);
    return { status: u.status, headers: u.headers, body: "" };
  }
  const op = def.byName.get(m.route.operation)!;
  // Every route that takes a body needs its type, empty body or not: a POST without one is CORS-simple.
  const wrongType =
    m.route.body !== null ? c.refuseContentType(req.header("content-type"), req.header("content-encoding")) : undefined;
  if (wrongType) return fail(c, wrongType, op.name);
  let admitted: Admitted;
  try {
    admitted = admitHttpCall(def, op, req, c.cardRules, version);
  } catch (e) {
    return fail(c, e, op.name);
  }
  seen.admitted = admitted;
  let json: JsonObject;
  try {
    const wrapper = def.restWrappedBodies?.[op.name];
    const maxBody = c.options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    json = await requestJson(req, m.route, m.params, maxBody, wrapper ? { op, wrapper } : undefined);
  } catch (e) {
    if (e instanceof BodyTooLargeError)
      return fail(c, new A2AError("InvalidRequestError", "Request body is too large", { httpStatus: 413 }));
    // The client is gone: no fault of the server's, nobody to read the answer.
    if (e instanceof BodyAbortedError) return fail(c, new A2AError("InvalidRequestError", e.message));
    return fail(c, e, op.name);
  }
  return serveMessage(c, req, admitted, op, m.route, json);
}

/** The request JSON checked and decoded, the handler called, its answer (or stream) written. */
async function serveMessage(
  c: ServerCtx,
  req: CoreRequest,
  admitted: Admitted,
  op: OperationInfo,
  route: Route,
  json: JsonObject,
): Promise<CoreResponse> {
  const { def } = c;
  const overLimit = jsonLimitProblem(json, op.method.input.name);
  if (overLimit) return fail(c, new A2AError("InvalidParamsError", `Invalid request for ${op.name}: ${overLimit}`));
  let input: Message;
  try {
    const wrong = jsonRequestProblem(op.method.input, json);
    if (wrong) return fail(c, invalidRequest(op, "HTTP+JSON", wrong), op.name);
    input = fromJson(op.method.input, json, { ignoreUnknownFields: true });
  } catch (e) {
    return fail(c, new A2AError("InvalidParamsError", `Invalid request for ${op.name}: ${(e as Error).message}`));
  }
  const context = lazyContext(req, admitted, "HTTP+JSON", tenantOf(def, input, op.tenantLocalName));
  if (op.streaming) return streamResponse(c, op, c.invoke.stream(op, input, context));
  try {
    const answer = await c.invoke.unary(op, input, context);
    const out = messageJson(def, op.method.output, answer) as JsonObject;
    const body = route.responseBody ? out[jsonNameOf(op, route.responseBody)] : out;
    return { status: 200, headers: c.responseHeaders, body: JSON.stringify(body ?? {}) };
  } catch (e) {
    return fail(c, e, op.name);
  }
}

/** The path below the base path; "//" right below it (base URL "/rest/" + "/tasks/1") counts as one "/". */
function routePath(path: string, base: string): string {
  const below = base && path.startsWith(base) ? path.slice(base.length) || "/" : path;
  return below.startsWith("//") ? below.slice(1) : below;
}

function hasDotSegment(path: string): boolean {
  if (!path.includes(".")) return false;
  for (const seg of path.split("/")) {
    const bare = seg.split(":")[0];
    if (bare === "." || bare === "..") return true;
  }
  return false;
}

/**
 * The version's Content-Type check for routes that take a body (request-content-type.ts): restRequestContentTypes,
 * else the binding's request type and application/json, refused with ContentTypeNotSupportedError.
 */
function restContentTypeCheck(def: ProtocolTables): ContentTypeCheck {
  const rule = def.restRequestContentTypes ?? {
    accept: [...new Set([def.contentTypes.rest.request, "application/json"])],
    error: def.errors.some((e) => e.name === "ContentTypeNotSupportedError")
      ? "ContentTypeNotSupportedError"
      : "InvalidRequestError",
  };
  return contentTypeCheck(rule.accept, rule.error);
}

function jsonNameOf(op: OperationInfo, field: string): string {
  return op.method.output.fields.find((f) => f.name === field)?.jsonName ?? field;
}

async function requestJson(
  req: CoreRequest,
  route: Route,
  params: Record<string, string>,
  limit: number,
  wrapped: { readonly op: OperationInfo; readonly wrapper: string } | undefined,
): Promise<JsonObject> {
  let json: JsonObject = {};
  if (route.body !== null) {
    const bytes = await req.body(limit);
    if (bytes.length > 0) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(utf8.decode(bytes));
      } catch {
        throw new A2AError("JSONParseError", "The request body is not valid JSON");
      }
      if (route.body === "*") {
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
          throw new A2AError("InvalidParamsError", "The body must be a JSON object");
        // The parsed object is the request as it is, unless a "__proto__" member must be left out.
        if (!Object.hasOwn(parsed, "__proto__")) json = parsed as JsonObject;
        else for (const [k, v] of Object.entries(parsed as JsonObject)) if (k !== "__proto__") json[k] = v;
      } else {
        json[route.bodyFields[0]!] = (
          wrapped ? unwrapBody(wrapped.op, route, parsed, wrapped.wrapper) : parsed
        ) as JsonValue;
      }
    }
  }
  if (req.hasQuery) addQuery(json, req.query, route);
  for (const v of route.variables) setPath(json, v.jsonName, params[v.field]!);
  return json;
}

/** The query parameters the route reads, as JSON members. */
function addQuery(json: JsonObject, query: URLSearchParams, route: Route): void {
  for (const q of route.queryFields) {
    const values = query.getAll(q.jsonName).concat(q.jsonName !== q.field ? query.getAll(q.field) : []);
    if (values.length === 0) continue;
    if (!q.repeated && values.length > 1)
      throw new A2AError("InvalidParamsError", `Query parameter ${q.jsonName} is given ${values.length} times`);
    const parts = q.repeated ? values.flatMap((v) => v.split(",")) : values;
    const typed = parts.map((v) => queryValue(v, q.type, q.jsonName));
    json[q.jsonName] = q.repeated ? typed : typed[0]!;
  }
}

/**
 * The body field's value from a body that may wrap it (restWrappedBodies): `{"<wrapper>": {…}}` with no member that
 * is a field of the body field's message is the wrapped form; anything else is the bare value.
 */
function unwrapBody(op: OperationInfo, route: Route, parsed: unknown, wrapper: string): unknown {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return parsed;
  const inner = (parsed as Record<string, unknown>)[wrapper];
  if (typeof inner !== "object" || inner === null || Array.isArray(inner)) return parsed;
  const field = op.method.input.fields.find((f) => f.jsonName === route.bodyFields[0]);
  const own = field?.fieldKind === "message" ? field.message.fields : [];
  const bare = Object.keys(parsed).some((k) => own.some((f) => f.jsonName === k || f.name === k));
  return bare ? parsed : inner;
}

function queryValue(v: string, type: string, name: string): JsonValue {
  if (type === "bool") {
    if (v === "true" || v === "false") return v === "true";
    throw new A2AError("InvalidParamsError", `Query parameter ${name} must be true or false`);
  }
  return v; // ProtoJSON reads numbers, enums and timestamps from strings
}

function setPath(json: JsonObject, dotted: string, value: string): void {
  const keys = dotted.split(".");
  let obj = json;
  for (const k of keys.slice(0, -1)) {
    const next = obj[k];
    const child = (typeof next === "object" && next !== null && !Array.isArray(next) ? next : {}) as JsonObject;
    obj[k] = child;
    obj = child;
  }
  obj[keys[keys.length - 1]!] = value;
}
