/**
 * The `protoc-gen-a2a` binary: runs the plugin (run-node.ts) when loaded. scripts/build-bundle.js bundles
 * this module and everything it imports into the one file that bin/protoc-gen-a2a.js loads
 * (dist/protoc-gen-a2a.js), so that a process reads and compiles one file instead of some two hundred modules.
 */
import { protocGenA2a } from "../plugin.js";
import { runPlugin } from "./run-node.js";

runPlugin(protocGenA2a);
