/**
 * The `protoc-gen-a2a` binary: runs the plugin (host/run-node.ts) when loaded. The top of the generator's
 * layers, above plugin.ts. scripts/build-bundle.js bundles this module and everything it imports into the one
 * file that bin/protoc-gen-a2a.cjs runs (dist/protoc-gen-a2a.cjs, through V8's code cache: host/load-bundle.ts),
 * so that a process reads one file instead of some two hundred modules, and compiles next to nothing.
 */
import { protocGenA2a } from "./plugin.js";
import { runPlugin } from "./host/run-node.js";

runPlugin(protocGenA2a);
