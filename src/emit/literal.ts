/**
 * Prints JSON data as a TypeScript/JavaScript literal that reads like
 * hand-formatted code, for the tables of generated modules:
 *
 *   - object keys that are identifiers are written bare, others quoted
 *   - a value that fits in the line is written on it: `{ a: 1, b: [2, 3] }`
 *   - otherwise its members are packed onto lines of at most `width`
 *     columns, one level deeper; a member that fits on no line alone is
 *     broken the same way on lines of its own
 *
 * The output is deterministic and depends only on the value and the width.
 */
type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };

const identifier = /^[A-Za-z_$][\w$]*$/;
const step = "  ";

/** `value` as a literal whose first line starts at column `column` (the caller's prefix). */
export function printLiteral(value: unknown, indent = "", width = 120, column = indent.length): string {
  return print(value as Json, indent, width, column);
}

function inline(v: Json): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${(v as readonly Json[]).map(inline).join(", ")}]`;
  const members = Object.entries(v).map(([k, x]) => `${key(k)}: ${inline(x)}`);
  return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
}

const key = (k: string) => (identifier.test(k) ? k : JSON.stringify(k));

function print(v: Json, indent: string, width: number, column: number): string {
  const flat = inline(v);
  if (column + flat.length <= width || v === null || typeof v !== "object") return flat;
  const inner = indent + step;
  const members = Array.isArray(v)
    ? (v as readonly Json[]).map((x) => ({ prefix: "", value: x }))
    : Object.entries(v).map(([k, x]) => ({ prefix: `${key(k)}: `, value: x }));
  const lines: string[] = [];
  let line = "";
  for (const m of members) {
    const text = m.prefix + inline(m.value) + ",";
    if (line !== "" && inner.length + line.length + 1 + text.length <= width) {
      line += " " + text;
      continue;
    }
    if (line !== "") lines.push(inner + line);
    line =
      inner.length + text.length <= width
        ? text
        : m.prefix + print(m.value, inner, width, inner.length + m.prefix.length) + ",";
  }
  if (line !== "") lines.push(inner + line);
  const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
  return `${open}\n${lines.join("\n")}\n${indent}${close}`;
}

/** The members of an object literal, one per line at `indent`, each `key: value,`, for a caller that adds more. */
export function printMembers(members: Readonly<Record<string, unknown>>, indent: string, width = 120): string {
  return Object.entries(members)
    .map(([k, v]) => `${indent}${key(k)}: ${print(v as Json, indent, width, indent.length + key(k).length + 2)},`)
    .join("\n");
}
