/**
 * One HTTP entry point serving two protocol versions at the same URLs, chosen
 * per call by A2A-Version (spec §3.6.2): absent, empty or 0.x goes to the
 * older version (an absent header means 0.3); any other value goes to the
 * newer one, which answers VersionNotSupportedError if it does not speak it.
 * The agent card follows the same rule, so a v0.3 client that sends no header
 * gets a card it can read.
 */
import type { DescService } from "@bufbuild/protobuf";
import type { A2aHandler, A2aServiceDefinition } from "./definition.js";
import { AGENT_CARD_PATH, createA2aHttpHandler } from "./http-server.js";
import type { OnError } from "./report-error.js";
import type { CoreHandler } from "./server-types.js";

export interface VersionSide<S extends DescService> {
  readonly definition: A2aServiceDefinition<S>;
  readonly handler: A2aHandler<S>;
}

export interface DualVersionOptions<O extends DescService, N extends DescService> {
  readonly older: VersionSide<O>;
  readonly newer: VersionSide<N>;
  readonly jsonrpcPath?: string;
  readonly restBasePath?: string;
  /** The card for each side, e.g. the newer card and the same card converted for older clients. */
  readonly agentCard?: (side: "older" | "newer", headers: Headers) => unknown;
  /** Cache-Control max-age of both cards, in seconds. Default 300. */
  readonly agentCardMaxAge?: number;
  /** More headers for each card response. */
  readonly agentCardHeaders?: (side: "older" | "newer", headers: Headers) => Readonly<Record<string, string>>;
  readonly requiredExtensions?: readonly string[];
  readonly maxBodyBytes?: number;
  readonly keepAliveMs?: number;
  readonly onLoss?: (operation: string, loss: { readonly path: string; readonly reason: string }) => void;
  /** Told of every failure that is not an A2A error, on both sides (server-types.ts). */
  readonly onError?: OnError;
}

export function createDualVersionHttpHandler<O extends DescService, N extends DescService>(
  options: DualVersionOptions<O, N>,
): CoreHandler {
  const common = {
    ...(options.jsonrpcPath !== undefined ? { jsonrpcPath: options.jsonrpcPath } : {}),
    ...(options.restBasePath !== undefined ? { restBasePath: options.restBasePath } : {}),
    ...(options.requiredExtensions ? { requiredExtensions: options.requiredExtensions } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
    ...(options.onLoss ? { onLoss: options.onLoss } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.agentCardMaxAge !== undefined ? { agentCardMaxAge: options.agentCardMaxAge } : {}),
  };
  const cardHeaders = options.agentCardHeaders;
  const card = options.agentCard;
  const older = createA2aHttpHandler({
    ...common,
    ...options.older,
    ...(card ? { agentCard: (h: Headers) => card("older", h) } : {}),
    ...(cardHeaders ? { agentCardHeaders: (h: Headers) => cardHeaders("older", h) } : {}),
  });
  const newer = createA2aHttpHandler({
    ...common,
    ...options.newer,
    ...(card ? { agentCard: (h: Headers) => card("newer", h) } : {}),
    ...(cardHeaders ? { agentCardHeaders: (h: Headers) => cardHeaders("newer", h) } : {}),
  });
  const header = options.newer.definition.headers.versionHeader;
  if (!header)
    throw new Error(
      `${options.newer.definition.service.typeName}: ` +
        "a dual-version server needs a newer version that has a version header",
    );
  return async (req) => {
    const v = (req.header(header) ?? "").trim();
    const res = await (v === "" || /^0\./.test(v) ? older : newer)(req);
    // The card depends on the version header: caches must keep one per value.
    return req.path === AGENT_CARD_PATH ? { ...res, headers: { ...res.headers, vary: header } } : res;
  };
}
