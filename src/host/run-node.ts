/**
 * Entry point of the `protoc-gen-a2a` binary.
 *
 * Rule (plugin-run.ts): with no arguments it is a protoc plugin (stdin request in, stdout response out),
 * unless stdin is a terminal: protoc and buf always pipe the request, so a terminal means a person ran it, who
 * gets the usage on stderr and exit code 2 instead of a process waiting for a request that never comes. `--help` prints
 * the usage; `-v`/`--version` the version. The commands are loaded only when run, so that plugin runs do not
 * pay for them: `sync <dir>` stages the pinned protos (src/sync/command.ts), `docs <openapi>...` renders
 * OpenAPI documents with Redoc (docs-command.ts). Any other argument is refused with the list of commands.
 *
 * A plugin run reads the request to its end, fits V8's young generation to its size (v8-flags.ts), decodes it
 * without the source info of imported files, runs the plugin and writes the response (plugin-wire.ts), then
 * exits 0. A failure is one line on stderr, `protoc-gen-a2a: <message>`, and exit code 1: what protoc and buf
 * show the user.
 */
import { fromBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema } from "@bufbuild/protobuf/wkt";
import type { Plugin } from "@bufbuild/protoplugin";
import { encodeResponse, withoutImportedSourceInfo } from "./plugin-wire.js";
import { isPluginRun } from "./plugin-run.js";
import { fitToRequest } from "./v8-flags.js";

/** The usage; it says what to do when buf finds no protos, since the plugin never runs then. */
export function usage(plugin: Plugin): string {
  return (
    `${plugin.name} ${plugin.version}\n` +
    "A protoc/buf plugin: reads a CodeGeneratorRequest on stdin, writes a CodeGeneratorResponse to stdout.\n" +
    `Use it with \`buf generate\` (local: ${plugin.name}) or \`protoc --plugin=${plugin.name} --a2a_out=...\`.\n` +
    'Options: see README.md, "Plugin options".\n' +
    "\n" +
    "Commands:\n" +
    `  ${plugin.name} sync <dir>              stage the pinned A2A protos and the google/api protos they import\n` +
    `                                      into <dir> (see \`${plugin.name} sync --help\`)\n` +
    `  ${plugin.name} docs <openapi>... [--out <dir>]\n` +
    "                                      render OpenAPI documents into HTML pages with Redoc\n" +
    `                                      (see \`${plugin.name} docs --help\`)\n` +
    "\n" +
    `If buf says the input "had no .proto files", the A2A protos are not staged yet: run\n` +
    `\`${plugin.name} sync <dir>\` first, with <dir> the module buf.yaml names (e.g. proto).\n`
  );
}

export function runPlugin(plugin: Plugin): void {
  const args = process.argv.slice(2);
  if (isPluginRun(args, process.stdin.isTTY === true)) {
    generate(plugin).then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`${plugin.name}: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(1);
      },
    );
    return;
  }
  const command = args[0];
  if (command === undefined) {
    process.stderr.write(`${plugin.name}: no CodeGeneratorRequest on stdin (it is a terminal)\n\n${usage(plugin)}`);
    process.exitCode = 2;
  } else if (command === "--help" || command === "-h") {
    process.stdout.write(usage(plugin));
  } else if (command === "sync" || command === "docs") {
    void runCommand(command, args.slice(1));
  } else if (command === "-v" || command === "--version") {
    process.stdout.write(`${plugin.name} ${plugin.version}\n`);
  } else {
    process.stderr.write(`${plugin.name}: unknown command "${command}"; commands: sync, docs (see --help)\n`);
    process.exitCode = 2;
  }
}

async function generate(plugin: Plugin): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const input = Buffer.concat(chunks);
  fitToRequest(input.length);
  const request = fromBinary(CodeGeneratorRequestSchema, withoutImportedSourceInfo(input));
  const response = encodeResponse(plugin.run(request));
  await new Promise<void>((resolve, reject) => process.stdout.write(response, (e) => (e ? reject(e) : resolve())));
}

async function runCommand(command: "sync" | "docs", args: string[]): Promise<void> {
  if (command === "sync") {
    const { runSyncCommand } = await import("../sync/command.js");
    process.exitCode = await runSyncCommand(args);
  } else {
    const { runDocsCommand } = await import("./docs-command.js");
    process.exitCode = runDocsCommand(args);
  }
}
