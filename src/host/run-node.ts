/**
 * Entry point of the `protoc-gen-a2a` binary.
 *
 * Rule: with no arguments it is a protoc plugin (stdin request in, stdout response out);
 * `--help` prints the usage; `sync <dir>` stages the pinned protos (src/sync/command.ts,
 * loaded only for that subcommand so that plugin runs do not pay for it).
 */
import type { Plugin } from "@bufbuild/protoplugin";
import { internals } from "./protoplugin-internals.js";

export function runPlugin(plugin: Plugin): void {
  const args = process.argv.slice(2);
  if (args[0] === "--help" || args[0] === "-h") {
    process.stdout.write(
      `${plugin.name} ${plugin.version}\n` +
        `A protoc/buf plugin: reads a CodeGeneratorRequest on stdin, writes a CodeGeneratorResponse to stdout.\n` +
        `Use it with \`buf generate\` (local: protoc-gen-a2a) or \`protoc --plugin=protoc-gen-a2a --a2a_out=...\`.\n` +
        `Options: see README.md, "Plugin options".\n` +
        `\n` +
        `Commands:\n` +
        `  ${plugin.name} sync <dir>   stage the pinned A2A protos and the google/api protos they import\n` +
        `                              into <dir> (see \`${plugin.name} sync --help\`)\n`,
    );
    return;
  }
  if (args[0] === "sync") {
    void import("../sync/command.js").then(async ({ runSyncCommand }) => {
      process.exitCode = await runSyncCommand(args.slice(1));
    });
    return;
  }
  internals.runNodeJs(plugin);
}
