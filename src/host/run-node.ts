/** Entry point of the `protoc-gen-a2a` binary: stdin request in, stdout response out. */
import type { Plugin } from "@bufbuild/protoplugin";
import { internals } from "./protoplugin-internals.js";

export function runPlugin(plugin: Plugin): void {
  const args = process.argv.slice(2);
  if (args[0] === "--help" || args[0] === "-h") {
    process.stdout.write(
      `${plugin.name} ${plugin.version}\n` +
        `A protoc/buf plugin: reads a CodeGeneratorRequest on stdin, writes a CodeGeneratorResponse to stdout.\n` +
        `Use it with \`buf generate\` (local: protoc-gen-a2a) or \`protoc --plugin=protoc-gen-a2a --a2a_out=...\`.\n` +
        `Options: see README.md, "Plugin options".\n`,
    );
    return;
  }
  internals.runNodeJs(plugin);
}
