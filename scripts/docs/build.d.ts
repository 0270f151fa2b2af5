// Types of scripts/docs/build.js, for the TypeScript test that imports it.

/** A version of the site: its documents in generated-samples/ and the operationIds of its OpenAPI document. */
export interface DocumentVersion {
  readonly version: string;
  readonly title: string;
  readonly openapi: string;
  readonly openrpc: string;
  readonly operationIds: readonly string[];
}

/** A built version: the page and the copied documents (file names in the site), and the page's path. */
export interface BuiltVersion extends DocumentVersion {
  readonly page: string;
  readonly apiFile: string;
  readonly rpcFile: string | undefined;
  readonly pagePath: string;
}

export interface BuiltSite {
  readonly out: string;
  readonly index: string;
  readonly versions: readonly BuiltVersion[];
}

/** The root of this repository. */
export const repoRoot: string;

/** The versions of generated-samples/ with an a2a_openapi.yaml, in name order. */
export function documentVersions(root?: string): DocumentVersion[];

/** Builds the site into `out` (default docs-site/), emptied first. */
export function buildDocs(out?: string): BuiltSite;
