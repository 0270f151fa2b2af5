// Types of scripts/bundle/bundle.js, for the TypeScript test that imports it.

/** The root of this repository, with a trailing slash. */
export const repoRoot: string;

/** A bundle: its path from the package root (`dist/protoc-gen-a2a.cjs`, `dist/load-bundle.cjs`) and its bytes. */
export interface BundleFile {
  readonly path: string;
  readonly bytes: Buffer;
}

/** Bundles the binary: with write, into dist/; without, only in memory. */
export function bundlePlugin(options: { write: boolean }): Promise<BundleFile>;

/** Bundles the binary's loader (dist/load-bundle.cjs) as bundlePlugin does the binary. */
export function bundleLoader(options: { write: boolean }): Promise<BundleFile>;
