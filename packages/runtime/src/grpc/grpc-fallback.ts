/**
 * A gRPC server's answer to a call that no registered method serves, for
 * connect-node's `fallback` option: `connectNodeAdapter({ routes, fallback:
 * grpcFallback([definitions]) })`. As on the HTTP bindings, the version is
 * checked before the method: a call whose version metadata (a2a-version)
 * names a version none of the served definitions speaks is
 * VersionNotSupportedError (FAILED_PRECONDITION with its ErrorInfo), so
 * `a2a-version: 0.5` on a v0.3 method is that error, not UNIMPLEMENTED; any
 * other call to an unknown method is UNIMPLEMENTED.
 *
 * Which versions are spoken: each definition with a version key speaks its
 * own (negotiation.ts); one without (v0.3) speaks its version, which a call
 * names by sending it or nothing (absentVersionMeans). The answer is a
 * trailers-only gRPC response: HTTP 200, the status in the headers
 * (grpc-status, grpc-message, grpc-status-details-bin: a google.rpc.Status
 * holding the ErrorInfo), which end the stream. The headers are set and the
 * answer ended without writeHead: on node:http2, writeHead sends a HEADERS
 * frame that leaves the stream open and an empty DATA frame ends it, and
 * grpc-js then reads no status (INTERNAL, "Call ended without gRPC status").
 */
import type { IncomingHttpHeaders } from "node:http";
import { Code } from "@connectrpc/connect";
import type { A2aServiceDefinition } from "../core/definition.js";
import { A2AError } from "../core/a2a-error.js";
import { checkVersion } from "../http/call-context.js";
import { negotiateVersion, type VersionResult } from "../http/negotiation.js";
import { grpcMessage, trailersOnlyStatus } from "./grpc-status.js";

/** What the fallback reads of a node:http or node:http2 request. */
export interface GrpcFallbackRequest {
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** What the fallback writes on a node:http or node:http2 response. */
export interface GrpcFallbackResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(): unknown;
}

/** The fallback for the gRPC services of `definitions` (each registered with grpcRoutes). */
export function grpcFallback(
  definitions: readonly A2aServiceDefinition[],
): (req: GrpcFallbackRequest, res: GrpcFallbackResponse) => void {
  const keyed = definitions.filter((d) => d.headers.grpcVersionKey !== null);
  const unkeyed = new Set(definitions.filter((d) => d.headers.grpcVersionKey === null).map((d) => d.protocolVersion));
  return (req, res) => {
    const refused = keyed.length > 0 ? versionRefusal(keyed, unkeyed, req.headers) : undefined;
    const path = (req.url ?? "").split("?")[0];
    const headers = refused
      ? trailersOnlyStatus(refused.def, refused.error)
      : { "grpc-status": String(Code.Unimplemented), "grpc-message": grpcMessage(`Method not found: ${path}`) };
    res.statusCode = 200;
    for (const [name, value] of Object.entries({ "content-type": "application/grpc", ...headers })) {
      res.setHeader(name, value);
    }
    res.end();
  };
}

/** The refusal of a call's version when no definition speaks it; undefined when one does. */
function versionRefusal(
  keyed: readonly A2aServiceDefinition[],
  unkeyed: ReadonlySet<string>,
  headers: IncomingHttpHeaders,
): { def: A2aServiceDefinition; error: unknown } | undefined {
  let first: { def: A2aServiceDefinition; version: VersionResult } | undefined;
  for (const def of keyed) {
    const raw = headers[def.headers.grpcVersionKey!];
    const version = negotiateVersion(def, Array.isArray(raw) ? raw.join(", ") : raw);
    if (version.ok || (!version.several && unkeyed.has(majorMinor(version.requested)))) return undefined;
    first ??= { def, version };
  }
  try {
    checkVersion(first!.def, first!.version);
  } catch (error) {
    return { def: first!.def, error };
  }
  return { def: first!.def, error: new A2AError("VersionNotSupportedError") };
}

function majorMinor(version: string): string {
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(version);
  return m ? `${Number(m[1])}.${Number(m[2])}` : "";
}
