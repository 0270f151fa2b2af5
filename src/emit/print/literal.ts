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
 * printFormatted prints the way a formatter does instead: a broken list has a member or item a line, nothing
 * hugged. The output is deterministic and depends only on the value and the width.
 */
type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };

const identifier = /^[A-Za-z_$][\w$]*$/;
const step = "  ";
const key = (k: string) => (identifier.test(k) ? k : JSON.stringify(k));

/** Values printed as a name: the inline text of a value → the expression that names it. */
export type LiteralNames = ReadonlyMap<string, string>;

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
  return new Printer(width, named).print(value as Json, indent, column);
}

/**
 * `value` as a literal the way a formatter prints it: inline when it fits, else each member or item on a line
 * of its own, nested values laid out the same way (no packing, no hugging).
 */
export function printFormatted(value: unknown, indent = "", width = 120, column = indent.length): string {
  return new Printer(width, new Map(), true).print(value as Json, indent, column);
}

/** The inline text of a value, as printLiteral writes it when it fits; the key of `named`. */
export function inlineLiteral(value: unknown): string {
  return new Printer(Number.POSITIVE_INFINITY, new Map()).inline(value as Json);
}

/** The members of an object literal, one per line at `indent`, each `key: value,`, for a caller that adds more. */
export function printMembers(members: Readonly<Record<string, unknown>>, indent: string, width = 120): string {
  const printer = new Printer(width, new Map());
  return Object.entries(members)
    .map(([k, v]) => `${indent}${key(k)}: ${printer.print(v as Json, indent, indent.length + key(k).length + 2)},`)
    .join("\n");
}

interface Member {
  readonly prefix: string;
  readonly value: Json;
}

const isObject = (v: Json): v is { readonly [k: string]: Json } =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** One printing: the line width and the values printed as names. */
class Printer {
  constructor(
    private readonly width: number,
    private readonly names: LiteralNames,
    /** Whether a broken list has a member a line (as a formatter prints it), not members packed. */
    private readonly onePerLine = false,
  ) {}

  inline(v: Json): string {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    const flat = isObject(v)
      ? this.inlineObject(v)
      : `[${(v as readonly Json[]).map((x) => this.inline(x)).join(", ")}]`;
    return this.names.get(flat) ?? flat;
  }

  private inlineObject(v: { readonly [k: string]: Json }): string {
    const members = Object.entries(v).map(([k, x]) => `${key(k)}: ${this.inline(x)}`);
    return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
  }

  print(v: Json, indent: string, column: number): string {
    const flat = this.inline(v);
    if (column + flat.length <= this.width || v === null || typeof v !== "object") return flat;
    if (Array.isArray(v) && indent !== "" && !this.onePerLine) {
      const hugged = this.hugArray(v as readonly Json[], column);
      if (hugged !== undefined) return hugged;
    }
    const inner = indent + step;
    const members = Array.isArray(v)
      ? (v as readonly Json[]).map((x) => ({ prefix: "", value: x }))
      : Object.entries(v).map(([k, x]) => ({ prefix: `${key(k)}: `, value: x }));
    const hugItems = Array.isArray(v) && !this.onePerLine;
    const lines = this.pack(members, inner, this.width, (m) =>
      hugItems && isObject(m.value)
        ? this.hug(m.value, inner)
        : m.prefix + this.print(m.value, inner, inner.length + m.prefix.length),
    );
    const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
    return `${open}\n${lines.map((l) => inner + l).join("\n")}\n${indent}${close}`;
  }

  /** Members as `prefix value,` packed onto lines that start at `indent`; one that fits no line is `broken`. */
  private pack(members: readonly Member[], indent: string, width: number, broken: (m: Member) => string): string[] {
    const lines: string[] = [];
    let line = "";
    for (const m of members) {
      const text = m.prefix + this.inline(m.value) + ",";
      if (line !== "" && !this.onePerLine && indent.length + line.length + 1 + text.length <= width) {
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
  private hugArray(items: readonly Json[], column: number): string | undefined {
    const align = " ".repeat(column + 1);
    const members = items.map((value) => ({ prefix: "", value }));
    let fits = true;
    const lines = this.pack(members, align, this.width - 1, () => {
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
  private hug(v: { readonly [k: string]: Json }, indent: string): string {
    const inner = indent + step;
    const members = Object.entries(v).map(([k, x]) => ({ prefix: `${key(k)}: `, value: x }));
    const lines = this.pack(
      members,
      inner,
      this.width - 2,
      (m) => m.prefix + this.print(m.value, inner, inner.length + m.prefix.length),
    );
    const last = lines.length - 1;
    lines[last] = lines[last]!.replace(/,$/, "");
    return `{ ${lines.join(`\n${inner}`)} }`;
  }
}
