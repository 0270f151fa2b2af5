/**
 * What the OpenAPI and OpenRPC documents both say about a version: where its proto comes from (the pinned
 * upstream file of proto/a2a.lock.json, through the source table) and every override entry applied to it,
 * with file, source and decision.
 */
import type { ResolvedApi } from "../../model/resolve-api.js";
import type { UpstreamSource } from "./sources.js";
import { compact, type TreeObject } from "../print/doc-tree.js";

/** The pinned upstream proto of a version (its entry in the source table), for `info`. */
export function pinnedProto(m: ResolvedApi, upstream: readonly UpstreamSource[]): UpstreamSource | undefined {
  return upstream.find((u) => u.version === `v${m.release}` && u.path.endsWith(".proto"));
}

/** `x-a2a-source`: where the proto comes from. */
export function sourceInfo(m: ResolvedApi, pin: UpstreamSource | undefined): TreeObject {
  return compact({
    protoFile: m.protoFile,
    package: m.package,
    service: m.service.fullName,
    protocolVersion: m.protocolVersion,
    release: m.release,
    tag: pin?.gitTag,
    commit: pin?.commit,
    path: pin?.path,
    url: pin?.url,
  });
}

/** Every override entry applied to the version. */
export function overridesList(m: ResolvedApi): TreeObject[] {
  return m.overrides.map((o) => ({
    id: o.id,
    target: o.target,
    file: o.file,
    summary: o.summary,
    source: `${o.source.document}, ${o.source.section}`,
    decision: o.decision,
  }));
}
