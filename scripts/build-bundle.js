// Build step after tsc and build-assets.js: writes the bundle of the binary, dist/protoc-gen-a2a.js, and its
// chunks, dist/chunks/ (emptied first), as scripts/bundle/bundle.js makes them.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { bundlePlugin, repoRoot } from "./bundle/bundle.js";

rmSync(join(repoRoot, "dist/chunks"), { recursive: true, force: true });
const files = await bundlePlugin({ write: true });
const main = files.find((f) => f.path === "dist/protoc-gen-a2a.js");
process.stderr.write(
  `build-bundle: dist/protoc-gen-a2a.js (${main.bytes.length} bytes) and ${files.length - 1} chunks\n`,
);
