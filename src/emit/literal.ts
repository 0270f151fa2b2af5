/**
 * Prints JSON data as a TypeScript/JavaScript literal that reads like
 * hand-formatted code, for the tables of generated modules:
 *
 *   - object keys that are identifiers are written bare, others quoted
 *   - a value that fits in the line is written on it: `{ a: 1, b: [2, 3] }`
 *   - otherwise its members are packed onto lines of at most `width`
 *     columns, one level deeper; a member that fits on no line alone is
 *     broken the same way on lines of its own
 *   - an object that is an item of a broken array hugs its braces:
 *     `{ a: 1, b: 2,` … `z: 26 }`, its members aligned after `{ `; a nested
 *     array whose items each fit on a line hugs its brackets the same way
 *
 * The output is deterministic and depends only on the value and the width.
 */
type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };

const identifier = /^[A-Za-z_$][\w$]*$/;
const step = "  ";

/** Values printed as a name: the inline text of a value → the expression that names it. */
export type LiteralNames = ReadonlyMap<string, string>;

let names: LiteralNames = new Map();

/**
 * `value` as a literal whose first line starts at column `column` (the caller's prefix).
 * A value whose inline text is a key of `named` is printed as the name it maps to.
 */
export function printLiteral(
  value: unknown,
  indent = "",
  width = 120,
  column = indent.length,
  named: LiteralNames = new Map(),
): string {
  names = named;
  try {
    return print(value as Json, indent, width, column);
  } finally {
    names = new Map();
  }
}

/** The inline text of a value, as printLiteral writes it when it fits; the key of `named`. */
export function inlineLiteral(value: unknown): string {
  return inline(value as Json);
}

function inline(v: Json): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  const flat = inlineUnnamed(v);
  return names.get(flat) ?? flat;
}

function inlineUnnamed(v: Json): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${(v as readonly Json[]).map(inline).join(", ")}]`;
  const members = Object.entries(v).map(([k, x]) => `${key(k)}: ${inline(x)}`);
  return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
}

const key = (k: string) => (identifier.test(k) ? k : JSON.stringify(k));

function print(v: Json, indent: string, width: number, column: number): string {
  const flat = inline(v);
  if (column + flat.length <= width || v === null || typeof v !== "object") return flat;
  if (Array.isArray(v) && indent !== "") {
    const hugged = hugArray(v as readonly Json[], column, width);
    if (hugged !== undefined) return hugged;
  }
  const inner = indent + step;
  const members = Array.isArray(v)
    ? (v as readonly Json[]).map((x) => ({ prefix: "", value: x }))
    : Object.entries(v).map(([k, x]) => ({ prefix: `${key(k)}: `, value: x }));
  const hugItems = Array.isArray(v);
  const lines = pack(members, inner, width, (m) =>
    hugItems && isObject(m.value)
      ? hug(m.value, inner, width)
      : m.prefix + print(m.value, inner, width, inner.length + m.prefix.length),
  );
  const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
  return `${open}\n${lines.map((l) => inner + l).join("\n")}\n${indent}${close}`;
}

interface Member {
  readonly prefix: string;
  readonly value: Json;
}

const isObject = (v: Json): v is { readonly [k: string]: Json } =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** Members as `prefix value,` packed onto lines that start at `indent`; one that fits no line is `broken`. */
function pack(members: readonly Member[], indent: string, width: number, broken: (m: Member) => string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const m of members) {
    const text = m.prefix + inline(m.value) + ",";
    if (line !== "" && indent.length + line.length + 1 + text.length <= width) {
      line += " " + text;
      continue;
    }
    if (line !== "") lines.push(line);
    line = indent.length + text.length <= width ? text : broken(m) + ",";
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * A nested array whose items each fit on a line, hugging its brackets: `[a, b,`
 * then the other items aligned after `[`, and `]` after the last one; undefined
 * when an item fits on no line.
 */
function hugArray(items: readonly Json[], column: number, width: number): string | undefined {
  const align = " ".repeat(column + 1);
  const members = items.map((value) => ({ prefix: "", value }));
  let fits = true;
  const lines = pack(members, align, width - 1, () => {
    fits = false;
    return "";
  });
  if (!fits) return undefined;
  const last = lines.length - 1;
  lines[last] = lines[last]!.replace(/,$/, "");
  return `[${lines.join(`\n${align}`)}]`;
}

/**
 * An object that is an item of a broken array, hugging its braces: `{ a: 1, b: 2,`
 * then the other members aligned after `{ `, and ` }` after the last one.
 */
function hug(v: { readonly [k: string]: Json }, indent: string, width: number): string {
  const inner = indent + step;
  const members = Object.entries(v).map(([k, x]) => ({ prefix: `${key(k)}: `, value: x }));
  const lines = pack(
    members,
    inner,
    width - 2,
    (m) => m.prefix + print(m.value, inner, width, inner.length + m.prefix.length),
  );
  const last = lines.length - 1;
  lines[last] = lines[last]!.replace(/,$/, "");
  return `{ ${lines.join(`\n${inner}`)} }`;
}

/** The members of an object literal, one per line at `indent`, each `key: value,`, for a caller that adds more. */
export function printMembers(members: Readonly<Record<string, unknown>>, indent: string, width = 120): string {
  return Object.entries(members)
    .map(([k, v]) => `${indent}${key(k)}: ${print(v as Json, indent, width, indent.length + key(k).length + 2)},`)
    .join("\n");
}
