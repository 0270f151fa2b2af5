/**
 * One HTTP entry point serving two protocol versions at the same URLs, chosen
 * per call by the version header, else the version query parameter (spec
 * §3.6.1, §3.6.2). Which values go to the older version is data: the newer
 * version's `dualVersion.olderVersions` (override api.dualVersion; without
 * it, the older version's own). A call whose Major.Minor is one of them, or
 * that names no version (`absentVersionMeans`), goes to the older version;
 * any other goes to the newer one, which serves its version and answers the
 * rest, another 0.x included, with VersionNotSupportedError, before it looks
 * up the method or route (so `A2A-Version: 0.5` with a v0.3 method name is
 * that error, never "Method not found"). A version header sent twice with the
 * same version counts once; with different ones it goes to the newer side,
 * which refuses it naming them.
 *
 * The agent card: a request that names a version gets that side's card; one
 * that names none gets one card both versions read (dual-card.ts), since a
 * v0.3 client sends no header and a v1.0 client fetching the well-known URL
 * the plain way must find its interfaces too. Every card answer varies on the
 * version header.
 *
 * A call without a version that the older side answers with 404 while the
 * newer side has a route for it (not counting `/{tenant}/…` variants, which
 * match any first segment) gets a 404 whose text/plain body says which
 * version serves the path and how to ask for it.
 *
 * Each side is its definition, handler and, for a bridged side, the JSON-RPC
 * operations served in one pass (VersionSide.jsonrpcOperations): what
 * bridgeToOlder returns is such a side as it is.
 */
import { type CorsOptions, withCors } from "../http/cors.js";
import type { DescService } from "@bufbuild/protobuf";
import { createAgentCardHandler } from "../http/card-server.js";
import type { A2aHandler, A2aServiceDefinition } from "../core/definition.js";
import { mergeAgentCards } from "../card/dual-card.js";
import {
  AGENT_CARD_PATH,
  createA2aHttpHandler,
  type StrictTransportSecurity,
  withStrictTransportSecurity,
} from "./http-server.js";
import { compilePathMatcher } from "../http/path-matcher.js";
import { distinctVersions, queryVersion } from "../http/negotiation.js";
import { headOf } from "../http/head.js";
import type { OnError } from "../core/report-error.js";
import type { Interceptor } from "../core/interceptor.js";
import type { CoreHandler, CoreRequest, CoreResponse } from "../core/server-types.js";
import type { JsonRpcOperations } from "../jsonrpc/json-operations.js";
import { headerRecord, varyBy } from "../core/records.js";

/** One version's side: a bridged side is what bridgeToOlder returns (definition, handler, jsonrpcOperations). */
export interface VersionSide<S extends DescService> {
  readonly definition: A2aServiceDefinition<S>;
  readonly handler: A2aHandler<S>;
  /** Operations its JSON-RPC endpoint serves on JSON (JsonRpcServerOptions.jsonrpcOperations). */
  readonly jsonrpcOperations?: JsonRpcOperations;
}

export interface DualVersionOptions<O extends DescService, N extends DescService> {
  readonly older: VersionSide<O>;
  readonly newer: VersionSide<N>;
  readonly jsonrpcPath?: string;
  readonly restBasePath?: string;
  /**
   * The card for each side, e.g. the newer card (ProtoJSON) and the same card converted for older clients
   * (a2a.json form, toOlderJson(card)). A request that names no version gets both merged (dual-card.ts).
   */
  readonly agentCard?: (side: "older" | "newer", headers: Headers) => unknown;
  /** Cache-Control max-age of the cards, in seconds. Default 300. */
  readonly agentCardMaxAge?: number;
  /** More headers for each card response; the merged card gets both sides', the newer's winning a clash. */
  readonly agentCardHeaders?: (side: "older" | "newer", headers: Headers) => Readonly<Record<string, string>>;
  readonly requiredExtensions?: readonly string[];
  readonly maxBodyBytes?: number;
  readonly keepAliveMs?: number;
  readonly onLoss?: (operation: string, loss: { readonly path: string; readonly reason: string }) => void;
  /** Told of every failure that is not an A2A error, on both sides (server-types.ts). */
  readonly onError?: OnError;
  /** Run around every call of both sides, the first outermost (interceptor.ts); a v0.3 call as a v0.3 call. */
  readonly interceptors?: readonly Interceptor[];
  /** Sends Strict-Transport-Security on every answer (http-server.ts). */
  readonly strictTransportSecurity?: StrictTransportSecurity;
  /** Answers cross-origin calls from these browser origins, for both versions (http/cors.ts). */
  readonly cors?: CorsOptions;
}

export function createDualVersionHttpHandler<O extends DescService, N extends DescService>(
  options: DualVersionOptions<O, N>,
): CoreHandler {
  const rules = options.newer.definition.headers;
  const header = rules.versionHeader;
  if (!header)
    throw new Error(
      `${options.newer.definition.service.typeName}: ` +
        "a dual-version server needs a newer version that has a version header",
    );
  const older = sideHandler(options, "older", options.older);
  const newer = sideHandler(options, "newer", options.newer);
  const both = mergedCard(options);
  const olderVersions = options.newer.definition.dualVersion?.olderVersions ?? [
    options.older.definition.protocolVersion,
  ];
  const toOlder = (asked: string | null) => olderVersions.includes(majorMinor(asked ?? rules.absentVersionMeans));
  const hint = newerRouteHint(options.older.definition, options.newer.definition, options.restBasePath);
  const vary = (res: CoreResponse) => ({ ...res, headers: varyBy(res.headers, header) });
  const answer = withStrictTransportSecurity(async (req) => {
    const asked = askedVersion(req, header, rules.versionQueryParameter);
    if (req.path === AGENT_CARD_PATH) {
      // The card depends on the version header: caches must keep one per value.
      if (both && asked === null) return vary(await both(req));
      return vary(await (toOlder(asked) ? older : newer)(req));
    }
    if (!toOlder(asked)) return newer(req);
    const res = await older(req);
    return res.status === 404 && asked === null ? (hint(req) ?? res) : res;
  }, options.strictTransportSecurity);
  return withCors(answer, options.cors);
}

const NO_HEADERS = new Headers();

/** What both sides share: the options but for the versions themselves. */
export type DualVersionSharedOptions = Omit<DualVersionOptions<DescService, DescService>, "older" | "newer">;

type Shared = DualVersionSharedOptions;

function sideHandler<S extends DescService>(
  options: Shared,
  side: "older" | "newer",
  own: VersionSide<S>,
): CoreHandler {
  const card = options.agentCard;
  const cardHeaders = options.agentCardHeaders;
  return createA2aHttpHandler({
    ...(options.jsonrpcPath !== undefined ? { jsonrpcPath: options.jsonrpcPath } : {}),
    ...(options.restBasePath !== undefined ? { restBasePath: options.restBasePath } : {}),
    ...(options.requiredExtensions ? { requiredExtensions: options.requiredExtensions } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
    ...(options.onLoss ? { onLoss: options.onLoss } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.interceptors ? { interceptors: options.interceptors } : {}),
    ...(options.agentCardMaxAge !== undefined ? { agentCardMaxAge: options.agentCardMaxAge } : {}),
    definition: own.definition,
    handler: own.handler,
    ...(own.jsonrpcOperations ? { jsonrpcOperations: own.jsonrpcOperations } : {}),
    // A provider that ignores the headers is passed as one without them, so calls need not build them.
    ...(card ? { agentCard: card.length < 2 ? () => card(side, NO_HEADERS) : (h: Headers) => card(side, h) } : {}),
    ...(cardHeaders ? { agentCardHeaders: (h: Headers) => cardHeaders(side, h) } : {}),
  });
}

/** The card handler for requests that name no version: both sides' cards merged. */
function mergedCard(options: Shared): CoreHandler | undefined {
  const card = options.agentCard;
  if (!card) return undefined;
  const cardHeaders = options.agentCardHeaders;
  return createAgentCardHandler((req) => mergeAgentCards(card("newer", req.headers), card("older", req.headers)), {
    ...(options.agentCardMaxAge !== undefined ? { maxAge: options.agentCardMaxAge } : {}),
    ...(cardHeaders ? { headers: (h: Headers) => headerRecord(cardHeaders("older", h), cardHeaders("newer", h)) } : {}),
  });
}

/**
 * The version a request names: the header, else the query parameter; null when neither is there or it is empty.
 * A repeated header naming one version ("0.3, 0.3") names it; one naming several keeps them all, which no side
 * has, so the newer side refuses it naming them (negotiation.ts).
 */
function askedVersion(req: CoreRequest, header: string, queryName: string | null): string | null {
  const fromHeader = req.header(header);
  const value = (fromHeader ?? (queryName && req.hasQuery ? queryVersion(req.query, queryName) : null))?.trim() ?? "";
  const versions = distinctVersions(value, true);
  return versions.length === 0 ? null : versions.length === 1 ? versions[0]! : value;
}

/** Major.Minor of `1.0` or `1.0.1`; "" for anything else (no side has it, so the newer side refuses it). */
function majorMinor(version: string): string {
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(version);
  return m ? `${Number(m[1])}.${Number(m[2])}` : "";
}

/** The 404 body for a newer-only path asked without a version. */
function asked404Body(def: A2aServiceDefinition) {
  const { versionHeader, versionQueryParameter, absentVersionMeans } = def.headers;
  const v = def.protocolVersion;
  const how =
    `the header "${versionHeader}: ${v}"` +
    (versionQueryParameter ? ` or the query parameter "?${versionQueryParameter}=${v}"` : "");
  return (method: string, path: string) =>
    `${method} ${path} is served by A2A ${v}; a request without ${versionHeader} is read as ` +
    `${absentVersionMeans}. Ask for ${v} with ${how}.`;
}

/**
 * A 404 naming the newer version for a request whose path only the newer version's HTTP+JSON routes serve
 * (not one the older version routes and answers 404, such as TaskNotFoundError); undefined otherwise.
 */
function newerRouteHint(
  olderDef: A2aServiceDefinition,
  newerDef: A2aServiceDefinition,
  restBasePath: string | undefined,
): (req: CoreRequest) => CoreResponse | undefined {
  const base = (restBasePath ?? "/rest").replace(/\/+$/, "");
  const older = compilePathMatcher([...olderDef.routes, ...olderDef.aliases]);
  // Not the `/{tenant}/…` variants: any first segment is a tenant there, a v0.3 path's `/v1` included.
  const newer = compilePathMatcher([...newerDef.routes, ...newerDef.aliases].filter((r) => !r.tenantVariant));
  const body = asked404Body(newerDef);
  return (req) => {
    if (base !== "" && !req.path.startsWith(base + "/")) return undefined;
    const below = req.path.slice(base.length);
    const path = below.startsWith("//") ? below.slice(1) : below;
    const method = req.method === "HEAD" ? "GET" : req.method;
    if (older.match(method, path).status !== 404) return undefined;
    const status = newer.match(method, path).status;
    if (status !== 200 && status !== 405) return undefined;
    const res = { status: 404, headers: { "content-type": "text/plain; charset=utf-8" }, body: body(method, req.path) };
    return req.method === "HEAD" ? headOf(res) : res;
  };
}
