#!/usr/bin/env node
// Runs the generator and its dependencies, bundled into one file by `npm run build` (scripts/build-bundle.js),
// through V8's code cache (src/host/load-bundle.ts).
import { runBundle } from "../dist/host/load-bundle.js";

runBundle(new URL("../dist/protoc-gen-a2a.cjs", import.meta.url));
