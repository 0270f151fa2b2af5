#!/usr/bin/env node
// Runs the generator and its dependencies, bundled into one file by `npm run build` (scripts/build-bundle.js),
// through V8's code cache (src/host/load-bundle.ts, bundled into dist/load-bundle.cjs). CommonJS, as both files it
// loads, so that Node starts it without its ES module loader.
"use strict";
const { join } = require("node:path");
const { runBundle } = require("../dist/load-bundle.cjs");

runBundle(join(__dirname, "..", "dist", "protoc-gen-a2a.cjs"));
