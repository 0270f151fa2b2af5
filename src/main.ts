/**
 * The `protoc-gen-a2a` binary: runs the plugin (host/run-node.ts) when loaded. The top of the generator's
 * layers, above plugin.ts. scripts/build-bundle.js bundles this module and everything it imports into the one
 * file that bin/protoc-gen-a2a.js loads (dist/protoc-gen-a2a.js), so that a process reads and compiles one file
 * instead of some two hundred modules.
 */
import { protocGenA2a } from "./plugin.js";
import { runPlugin } from "./host/run-node.js";

runPlugin(protocGenA2a);
