/**
 * Prints a plain JSON value (a document's data tree, doc-tree.ts) as YAML 1.2 in block style, the same
 * bytes for the same tree. It writes what a JSON value needs and nothing else (no anchors, tags or
 * folding), so it is small, and on the 230 kB OpenAPI documents about five times faster than the
 * `yaml` package (which also takes 55 ms to load); test/emit/yaml-print.test.ts reads its output back
 * with that package.
 *
 * Grammar of the output, by value:
 *   object   {} when empty; else one `key: value` line a key, a nested block on the lines below,
 *            indented by two
 *   array    [] when empty; else one `- item` line an item, a nested block continuing after "- "
 *   string   plain when it cannot be read as anything else (PLAIN, and not a YAML 1.1 or 1.2 keyword
 *            or number); a literal block (|-, |, |+) when it has line breaks and nothing a block cannot
 *            hold; else double-quoted, JSON's escapes plus \uXXXX for what YAML does not print as it is
 *   number, boolean, null   as JSON writes them
 * Keys follow the string rule, without blocks.
 */
/** A plain JSON value, as the documents' data trees are (doc-tree.ts names it Tree). */
export type PlainValue =
  | null
  | boolean
  | number
  | string
  | readonly PlainValue[]
  | { readonly [key: string]: PlainValue };
type Tree = PlainValue;

/** Safe plain scalars: a conservative subset (no indicator first, no ": " or " #", no edge spaces). */
const PLAIN = /^[A-Za-z_$/.(][A-Za-z0-9_$/.()+=,;:' -]*$/;
/** What a YAML 1.1 or 1.2 reader would take for a boolean, null or number. */
const KEYWORD = /^(?:y|n|yes|no|on|off|true|false|null|~|\.inf|\.nan|\.[0-9].*)$/i;
/**
 * A character a YAML document cannot hold as it is: C0 but tab and LF, DEL, C1, line separators, BOM. One class,
 * which a regular expression scans natively where a loop would run cold; UTF-16 code units, so that a surrogate
 * pair (never in the class) is left whole.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds
const UNPRINTABLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
const EVERY_UNPRINTABLE = new RegExp(UNPRINTABLE.source, "g");

const hasUnprintable = (s: string): boolean => UNPRINTABLE.test(s);

export function printYaml(tree: Tree): string {
  const lines: string[] = [];
  block(tree, "", lines, "");
  return lines.join("\n") + "\n";
}

/** Appends `value` to `lines`; its first line starts with `head` (a key or "- "), the others with `indent`. */
function block(value: Tree, indent: string, lines: string[], head: string): void {
  if (Array.isArray(value)) {
    if (value.length === 0) lines.push(`${head}[]`);
    else sequence(value, indent, lines, head);
  } else if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) lines.push(`${head}{}`);
    else mapping(entries, indent, lines, head);
  } else if (typeof value === "string" && isBlockText(value)) {
    literal(value, indent, lines, head);
  } else lines.push(head + scalar(value));
}

function mapping(entries: readonly [string, Tree][], indent: string, lines: string[], head: string): void {
  for (let i = 0; i < entries.length; i++) {
    const k = entries[i]![0];
    const v = entries[i]![1];
    const prefix = (i === 0 ? head : indent) + key(k) + ":";
    if (isCollection(v)) {
      lines.push(prefix);
      block(v, indent + "  ", lines, indent + "  ");
    } else block(v, indent + "  ", lines, prefix + " ");
  }
}

/** `head` is blank (the sequence sits below its key) or ends in "- " (a sequence in a sequence). */
function sequence(items: readonly Tree[], indent: string, lines: string[], head: string): void {
  for (let i = 0; i < items.length; i++) block(items[i]!, indent + "  ", lines, (i === 0 ? head : indent) + "- ");
}

const isCollection = (v: Tree): boolean =>
  v !== null && typeof v === "object" && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);

function scalar(v: Tree): string {
  if (typeof v === "string") return plainOk(v) ? v : quoted(v);
  return JSON.stringify(v);
}

const key = (k: string) => (plainOk(k) ? k : quoted(k));

const plainOk = (s: string) =>
  PLAIN.test(s) && !s.endsWith(" ") && !s.endsWith(":") && !s.includes(": ") && !KEYWORD.test(s);

/** JSON's double-quoted form (JSON escapes C0 already), with \\uXXXX for the rest of what YAML cannot hold. */
function quoted(s: string): string {
  const json = JSON.stringify(s);
  if (!hasUnprintable(json)) return json;
  return json.replace(EVERY_UNPRINTABLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Text a literal block holds exactly: line breaks, printable, no CR, no space or tab opening it. */
const isBlockText = (s: string) =>
  s.includes("\n") && !/^[ \t\n]/.test(s) && !s.includes("\r") && !hasUnprintable(s) && !/[ \t]\n/.test(s);

function literal(s: string, indent: string, lines: string[], head: string): void {
  const trailing = /\n*$/.exec(s)![0].length;
  const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
  lines.push(`${head}|${chomp}`);
  // The last line break is the block's own; the ones before it are empty lines of the content.
  const body = trailing === 0 ? s : s.slice(0, -1);
  const pad = indent === "" ? "  " : indent;
  for (const line of body.split("\n")) lines.push(line === "" ? "" : pad + line);
}
