#!/usr/bin/env node
// The generator and its dependencies bundled into one module by `npm run build` (scripts/build-bundle.js).
import "../dist/protoc-gen-a2a.js";
