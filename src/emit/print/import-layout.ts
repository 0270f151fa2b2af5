/**
 * The import block of a module protoc-gen-a2a writes, laid out as a formatter prints it. protoplugin prints
 * one line per module imported from, however many names it brings:
 *
 *   import { a, b, c } from "m";        import type { A, B } from "m";
 *
 * A line of that form wider than the generated modules allow (MAX_WIDTH) becomes one name per line, each
 * followed by a comma, one level deeper:
 *
 *   import type {
 *     A,
 *     B,
 *   } from "m";
 *
 * The block is the module's leading lines: comments, blank lines and import statements. The first other
 * line ends it, and nothing after it is read. Any other import form is left as it is.
 */
import { MAX_WIDTH } from "./wrap-line.js";

const NAMED_IMPORT = /^import (type )?\{ ([^{}]+) \} from ("[^"\n]*");$/;
const IN_BLOCK = /^(?:import |\/\/|\/\*| \*|$)/;

/** `content` with each import line of its leading block wider than `width` laid out on several. */
export function layOutImports(content: string, width = MAX_WIDTH): string {
  const lines = content.split("\n");
  const out: string[] = [];
  let i = 0;
  for (; i < lines.length && IN_BLOCK.test(lines[i]!); i++) out.push(...importLines(lines[i]!, width));
  return [...out, ...lines.slice(i)].join("\n");
}

function importLines(line: string, width: number): string[] {
  const m = line.length > width ? NAMED_IMPORT.exec(line) : null;
  if (m === null) return [line];
  const names = m[2]!.split(", ").map((name) => `  ${name},`);
  return [`import ${m[1] ?? ""}{`, ...names, `} from ${m[3]};`];
}
