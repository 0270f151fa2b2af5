/**
 * How generated code is laid out in lines of at most 120 columns, as a careful
 * writer would break them (the emitters of the cross-version modules use it):
 *
 *   width     code as printed: its text, an import by its name
 *   guarded   `if (cond) stmt`, the statement on a line of its own when both do not fit
 *   ifBlock   `if (cond) { a b }` on one line when it fits, else a block
 *   switch    `case x: a; break;` on one line when it fits, else a statement a line
 *   listed    a list literal (object, array, Map entries): one line when it fits, else an item a line
 *   chained   operands of `||` or `&&`: one line when they fit, else an operand a line
 *   cases     `case` labels, one a line, then the statement one level deeper
 *   packed    words joined onto lines of a given width (a comment's text)
 *   indented  lines of a statement nested in a block
 *   code      a piece of code from a template, import symbols in place
 *   prose     a comment's text wrapped at a width
 *   params    a signature's parameters, one a line when they do not fit on one
 *
 * Widths leave room for the indentation a line gets from the blocks it sits in.
 */
import type { Printable } from "@bufbuild/protoplugin";

/** One line of generated code, or a piece of one. */
export type Code = Printable;

/** Code from a template: its text with the values (text, import symbols, other code) in between. */
export function code(strings: TemplateStringsArray, ...values: Code[]): Code[] {
  const out: Code[] = [];
  strings.forEach((s, i) => {
    if (s !== "") out.push(s);
    if (i < values.length) out.push(values[i]!);
  });
  return out;
}

/**
 * The width of code as printed: its text, an import by its name (a name protoplugin renames on a clash, as
 * `Task$1`, is a little wider), an export by its keywords and name, a message's shape by the message's name.
 */
export function widthOf(c: Code): number {
  if (typeof c === "string") return c.length;
  if (Array.isArray(c)) return c.reduce((n: number, x: Code) => n + widthOf(x), 0);
  if (typeof c !== "object" || c instanceof Uint8Array) return String(c).length;
  switch (c.kind) {
    case "es_symbol":
      return c.name.length;
    case "es_export_stmt":
      return `export ${c.declaration ?? ""} ${c.name}`.length;
    case "es_shape_ref":
    case "es_desc_ref":
      return c.desc.name.length;
    case "es_string":
      return JSON.stringify(c.value).length;
    default:
      return 0;
  }
}

/** Statement (lines): `if (cond) stmt`, the statement on a line of its own when both do not fit in `width`. */
export function guarded(cond: Code, stmt: Code, width = 114): Code[] {
  const one = code`if (${cond}) ${stmt}`;
  return widthOf(one) <= width ? [one] : [code`if (${cond})`, ["  ", stmt]];
}

/** `if (cond) { a b }`: on one line when it fits in `width`, else a block with a statement a line. */
export function ifBlock(cond: Code, stmts: readonly Code[], width = 114): Code[] {
  const one: Code[] = ["if (", cond, ") {"];
  for (const x of stmts) one.push(" ", x);
  one.push(" }");
  return widthOf(one) <= width ? [one] : [code`if (${cond}) {`, ...indented("  ", stmts), "}"];
}

/**
 * A switch case (lines at the switch's own indentation, its body one level deeper): `case x: a; break;` on
 * one line when it fits in `width`, else the label, then a statement a line.
 */
export function switchCase(label: Code, stmts: readonly Code[], width = 110): Code[] {
  const one: Code[] = ["  ", label];
  for (const x of stmts) one.push(" ", x);
  if (widthOf(one) <= width) return [one];
  return [["  ", label], ...indented("    ", stmts)];
}

/** Lines of code, each indented by `prefix` (a statement inside a block). */
export const indented = (prefix: string, lines: readonly Code[]): Code[] => lines.map((l) => [prefix, l]);

/**
 * A list as a formatter prints it: `open a, b close` on one line when it fits in `width` (everything before
 * `open` on its line counted in `width`), else `open`, each item on a line of its own one level deeper with
 * a trailing comma, then `close`. An `open` ending in `{` is spaced from the items on one line (`{ a, b }`).
 * An item of several lines (a nested list) is indented as a whole and keeps the list broken.
 */
export function listed(open: string, items: readonly string[], close: string, width = 120): string[] {
  const joined = items.join(", ");
  const one = items.length > 0 && open.endsWith("{") ? `${open} ${joined} ${close}` : `${open}${joined}${close}`;
  if (one.length <= width && !one.includes("\n")) return [one];
  return [open, ...items.flatMap((x) => `${x},`.split("\n").map((l) => `  ${l}`)), close];
}

/**
 * Operands joined by `op` (`||`, `&&`) as a formatter prints them: on one line when it fits in `width`, else
 * an operand a line, each but the last ending in `op`.
 */
export function chained(operands: readonly string[], op: string, width: number): string[] {
  const one = operands.join(` ${op} `);
  if (one.length <= width) return [one];
  return operands.map((x, i) => (i < operands.length - 1 ? `${x} ${op}` : x));
}

/** A switch case of several labels, as a formatter prints it: a label a line, then `stmt` one level deeper. */
export const cases = (labels: readonly string[], stmt: Code): Code[] => [...labels, ["  ", stmt]];

/**
 * `items` joined by `sep` onto lines of at most `width` characters, the nesting a line sits in not counted;
 * an item longer than that stands on a line of its own. For the words of a comment (prose): code is laid out
 * a member a line (listed, chained, cases), as a formatter prints it.
 */
export function packed(items: readonly string[], width = 100, sep = " "): string[] {
  const lines: string[] = [];
  for (const item of items) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + sep.length + item.length <= width) lines[last] += sep + item;
    else lines.push(item);
  }
  return lines;
}

/** A comment's text, its words wrapped onto lines of at most `width` characters (its own line breaks kept). */
export function prose(text: string, width = 100): string {
  return text
    .split("\n")
    .map((line) => packed(line.split(" "), width).join("\n"))
    .join("\n");
}

/**
 * A signature as one printable: `head(a, b): R` and `end` (" {" or ";") on one line when it fits in 120
 * columns, else each parameter on a line of its own, as a formatter prints them.
 */
export function params(head: Code, list: readonly Code[], result: Code, end: string): Code[] {
  const one: Code[] = [head, "(", ...list.flatMap((p, i) => (i === 0 ? [p] : [", ", p])), "): ", result, end];
  if (widthOf(one) <= 120) return one;
  return [head, "(\n", ...list.flatMap((p) => ["  ", p, ",\n"]), "): ", result, end];
}
