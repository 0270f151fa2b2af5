/**
 * HTTP+JSON binding, client side, built on the generated route table. The
 * request message becomes: path variables expanded into the route (the
 * `/{tenant}` variant when the request has a tenant), camelCase query
 * parameters for GET and DELETE (repeated fields repeat the parameter), and a
 * body as the rule's `body` says. Errors are read from the body (ErrorInfo
 * in `error.details`, a standard error's `status` and message, or v0.3's
 * `{code, message}`); a bare status is an A2ATransportError naming the
 * operation and the URL (client-errors.ts). A stream's `error` event holds
 * the same body.
 * When the peer answers 405 or 501, a route the overrides add for the same
 * operation with another method is tried once (SubscribeToTask GET → POST, I14).
 * Query parameters an interceptor adds (an API key) follow the request's own;
 * errors name the URL without them.
 */
import { fromJson, type DescService, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";
import { messageJson } from "../core/protojson-write.js";
import { isEventStream } from "../core/response-body.js";
import type { A2aClient, A2aServiceDefinition, OperationInfo } from "../core/definition.js";
import { A2ATransportError } from "../core/a2a-error.js";
import { errorFromRest, type HttpAnswer } from "../core/client-errors.js";
import {
  buildClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  fetchFor,
  responseText,
  serviceHeaders,
  withQuery,
  type A2aClientOptions,
  type BindingCall,
  answersNothing,
} from "../http/client-http.js";
import { expandPath } from "../http/path-matcher.js";
import type { Route } from "../core/route-types.js";
import { decodeSse, sseStreamFromResponse } from "../http/sse.js";

const RETRY_STATUSES = [405, 501];

/** What every call of one client needs. */
interface ClientCtx {
  readonly def: A2aServiceDefinition;
  readonly options: A2aClientOptions;
  readonly fetchFn: typeof fetch;
  readonly base: string;
  /** The most bytes of a response body or of one stream event (A2aClientOptions.maxResponseBytes). */
  readonly maxBytes: number;
}

export function createRestClient<S extends DescService>(
  def: A2aServiceDefinition<S>,
  options: A2aClientOptions,
): A2aClient<S> {
  const c: ClientCtx = {
    def: def as unknown as A2aServiceDefinition,
    options,
    fetchFn: options.fetch ?? globalThis.fetch,
    base: options.url.replace(/\/+$/, ""),
    maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
  return buildClient<S>(
    def,
    async (op, request, call) => {
      const { res, site } = await send(c, op, request, call, def.contentTypes.rest.response);
      const text = await responseText(res, c.maxBytes, site);
      if (text === "" && !answersNothing(op)) {
        const said = `${site.operation}: ${site.method} ${site.url} answered HTTP ${res.status} with no body`;
        throw new A2ATransportError(said, res.status, "", {
          operation: site.operation,
          url: site.url,
          headers: res.headers,
        });
      }
      return decode(op, op.routes[0], text === "" ? {} : JSON.parse(text));
    },
    async function* (op, request, call) {
      const { res, site } = await send(c, op, request, call, def.contentTypes.rest.stream);
      if (!isEventStream(res)) {
        await res.body?.cancel().catch(() => {});
        const answered = res.headers.get("content-type") || "no Content-Type";
        const said = `${site.operation}: ${site.method} ${site.url} answered ${answered}, not a stream`;
        const details = { operation: site.operation, url: site.url, headers: res.headers };
        throw new A2ATransportError(said, res.status, undefined, details);
      }
      for await (const ev of decodeSse(sseStreamFromResponse(res.body), { maxEventChars: c.maxBytes })) {
        if (ev.event === "error") throw errorFromRest(def, answer(res, ev.data), site, "sent an error event");
        yield decode(op, undefined, JSON.parse(ev.data));
      }
    },
    options,
    "HTTP+JSON",
  );
}

/**
 * Sends a request on the route that fits it (its tenant variant; the proto's route first) and, when that answers
 * 405 or 501, once more on the override route of another method; a non-2xx answer is thrown as its error.
 */
async function send(c: ClientCtx, op: OperationInfo, request: Message, call: BindingCall | undefined, accept: string) {
  const { def } = c;
  const json = messageJson(def, op.method.input, request) as JsonObject;
  const tenant = def.tenantField ? json[fieldJson(op, def.tenantField)] : undefined;
  const candidates = op.routes.filter((r) => r.tenantVariant === (typeof tenant === "string" && tenant !== ""));
  // Routes whose resource-name patterns fit the request (v0.3 create: `tasks/{id}` takes the
  // plural alias), the proto's first.
  const usable = candidates.filter((r) => fits(r, json));
  const primary = usable.find((r) => r.origin !== "override") ?? usable[0];
  if (!primary)
    throw new Error(
      `${op.name}: no HTTP+JSON route fits the request (${candidates.map((r) => r.template).join(", ")})`,
    );
  let sent = await sendOn(c, op, primary, json, call, accept);
  if (RETRY_STATUSES.includes(sent.res.status)) {
    const alt = candidates.find((r) => r.origin === "override" && r.method !== primary.method);
    if (alt) {
      // The refusal's body is not read: let its connection go before the other route is asked.
      await sent.res.body?.cancel().catch(() => {});
      sent = await sendOn(c, op, alt, json, call, accept);
    }
  }
  const { res, site } = sent;
  if (!res.ok) throw errorFromRest(def, answer(res, await responseText(res, c.maxBytes, site)), site);
  return sent;
}

/** What errorFromRest reads of an answer: its status and headers, with `text` (its body or an event's data). */
const answer = (res: Response, text: string): HttpAnswer => ({ status: res.status, text, headers: res.headers });

/** One HTTP request on `route`: path variables, query fields and body from the request's JSON. */
async function sendOn(
  c: ClientCtx,
  op: OperationInfo,
  route: Route,
  json: JsonObject,
  call: BindingCall | undefined,
  accept: string,
) {
  const { def, options } = c;
  const query = new URLSearchParams();
  for (const q of route.queryFields) {
    const value = json[q.jsonName];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value])
      query.append(q.jsonName, typeof item === "string" ? item : JSON.stringify(item));
  }
  const headers = serviceHeaders(def, options, call);
  headers.set("accept", accept);
  let body: string | undefined;
  if (route.body !== null) {
    headers.set("content-type", def.contentTypes.rest.request);
    const bound = new Set(route.variables.map((v) => v.jsonName.split(".")[0]!));
    const payload =
      route.body === "*"
        ? Object.fromEntries(Object.entries(json).filter(([k]) => !bound.has(k)))
        : (json[route.bodyFields[0]!] ?? {});
    body = JSON.stringify(payload);
  }
  const qs = query.toString();
  const signal = call?.signal;
  const url = c.base + expandPath(route, pathValues(route, json)) + (qs ? "?" + qs : "");
  const init = {
    method: route.method,
    headers,
    redirect: "manual" as const,
    ...(body !== undefined ? { body } : {}),
    ...(signal ? { signal } : {}),
  };
  const res = await fetchFor(c.fetchFn, op.name, withQuery(url, call), init, url);
  return { res, site: { operation: op.name, url, method: route.method } };
}

/** A response body as the operation's response message (a route's response_body wrapped back first). */
function decode(op: OperationInfo, route: Route | undefined, value: unknown): Message {
  const wrapped = route?.responseBody ? { [fieldJsonOut(op, route.responseBody)]: value } : value;
  return fromJson(op.method.output, wrapped as JsonValue, { ignoreUnknownFields: true });
}

function pathValues(route: Route, json: JsonObject): Record<string, string> {
  const values: Record<string, string> = {};
  for (const v of route.variables) values[v.field] = String(getPath(json, v.jsonName) ?? "");
  return values;
}

function fits(route: Route, json: JsonObject): boolean {
  try {
    expandPath(route, pathValues(route, json));
    return true;
  } catch {
    return false;
  }
}

function fieldJson(op: OperationInfo, name: string): string {
  return op.method.input.fields.find((f) => f.name === name)?.jsonName ?? name;
}

function fieldJsonOut(op: OperationInfo, name: string): string {
  return op.method.output.fields.find((f) => f.name === name)?.jsonName ?? name;
}

function getPath(json: JsonObject, dotted: string): JsonValue | undefined {
  let v: JsonValue | undefined = json;
  for (const k of dotted.split("."))
    v = v && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject)[k] : undefined;
  return v;
}
