/**
 * Whether a process of the binary is a plugin run. Rule: no arguments, and stdin not a terminal (protoc and
 * buf always pipe the request). run-node.ts decides what the process does by it; load-bundle.ts writes the
 * code cache only after such a run. Imports nothing, so the binary's loader can ask before the bundle loads.
 */
export function isPluginRun(args: readonly string[], stdinIsTerminal: boolean): boolean {
  return args.length === 0 && !stdinIsTerminal;
}
