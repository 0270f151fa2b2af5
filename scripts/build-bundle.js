// Build step after tsc and build-assets.js: writes the bundle of the binary, dist/protoc-gen-a2a.cjs, and its
// loader, dist/load-bundle.cjs, as scripts/bundle/bundle.js makes them. It removes first the code caches of the
// previous bundle (dist/.v8-cache, src/host/load-bundle.ts), so that a packed package holds none, and the ES
// module bundle and chunks that builds before the code cache wrote.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { bundleLoader, bundlePlugin, repoRoot } from "./bundle/bundle.js";

for (const old of ["dist/.v8-cache", "dist/chunks", "dist/protoc-gen-a2a.js"])
  rmSync(join(repoRoot, old), { recursive: true, force: true });
for (const bundle of [await bundlePlugin({ write: true }), await bundleLoader({ write: true })])
  process.stderr.write(`build-bundle: ${bundle.path} (${bundle.bytes.length} bytes)\n`);
