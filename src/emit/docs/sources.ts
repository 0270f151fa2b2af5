/**
 * The source table the docs cite (proto/a2a.sources.json joined with the lock's commits by
 * scripts/build-assets.js): which tag stands for which upstream file or project document.
 */
import { readGeneratedJson } from "../../assets.js";

/** An upstream file the docs cite by tag, pinned at the commit of its version (proto/a2a.lock.json). */
export interface UpstreamSource {
  readonly tag: string;
  readonly version: string;
  readonly gitTag: string;
  readonly commit: string;
  readonly path: string;
  readonly url: string;
  readonly title: string;
  readonly citation: string;
}

/** A document of the project the docs cite (not published), with its parts and the public sources each rests on. */
export interface ProjectSource {
  readonly tag: string;
  readonly title: string;
  readonly where: string;
  readonly description: string;
  readonly parts: readonly { readonly id: string; readonly covers: string; readonly restsOn: string }[];
}

/** Every source tag the docs use (proto/a2a.sources.json joined with the lock's commits). */
export interface SourceTable {
  readonly repository: string;
  readonly upstream: readonly UpstreamSource[];
  readonly project: readonly ProjectSource[];
}

export function sourceTable(): SourceTable {
  return readGeneratedJson<SourceTable>("sources.json");
}
