/**
 * Lays a long line of generated code out on several, so that no line is wider than the generated modules
 * allow (120 columns), the way a careful writer breaks it:
 *
 *   if (cond) stmt           → `if (cond)`, then the statement one level deeper
 *   x = cond ? a : b         → `x = cond`, `? a` and `: b` one level deeper
 *   f(a, b) / { a, b } / […] → the widest bracket at the top level opened: its items on the next lines one level
 *                              deeper, one per line as a formatter prints them (each laid out the same way),
 *                              a trailing comma where the brackets allow one, the closing bracket on its own line
 *   "a long string"          → split at a space into "…" + "…"
 *
 * A line is a list of printables; text is read as JavaScript tokens (strings, template literals and regular
 * expressions kept whole), an import symbol as the name it prints. A line holding anything else, or a line
 * break, is left as it is, as is a line that fits.
 */
import type { ImportSymbol, Printable } from "@bufbuild/protoplugin";

export const MAX_WIDTH = 120;

type Piece = string | ImportSymbol;

interface Token {
  readonly piece: Piece;
  /** Its text as printed (a symbol's name). */
  readonly text: string;
  readonly kind: "open" | "close" | "comma" | "space" | "string" | "other";
}

/** The line laid out in lines of at most `width` columns where it can be, each line's indent included. */
export function wrapLine(line: readonly Printable[], width = MAX_WIDTH): Printable[][] {
  const pieces = flatten(line);
  if (pieces === undefined) return [[...line]];
  const text = pieces.map(textOf).join("");
  if (text.length <= width || text.includes("\n")) return [[...line]];
  const tokens = tokenize(pieces);
  if (tokens === undefined) return [[...line]];
  const indent = /^ */.exec(text)![0];
  return layout(trim(tokens), indent, width).map((ts) => ts.map((t) => t.piece));
}

const textOf = (p: Piece) => (typeof p === "string" ? p : p.name);

function flatten(line: readonly Printable[]): Piece[] | undefined {
  const out: Piece[] = [];
  for (const p of line) {
    if (typeof p === "string") out.push(p);
    else if (Array.isArray(p)) {
      const inner = flatten(p);
      if (inner === undefined) return undefined;
      out.push(...inner);
    } else if (typeof p === "object" && p !== null && "kind" in p && p.kind === "es_symbol") out.push(p);
    else return undefined;
  }
  return out;
}

/** Tokens of the pieces; undefined for text this reader does not follow (a comment). */
function tokenize(pieces: readonly Piece[]): Token[] | undefined {
  const out: Token[] = [];
  for (const p of pieces) {
    if (typeof p !== "string") {
      out.push({ piece: p, text: p.name, kind: "other" });
      continue;
    }
    for (let i = 0; i < p.length; ) {
      const end = tokenEnd(p, i, out);
      if (end === undefined) return undefined;
      const text = p.slice(i, end);
      out.push({ piece: text, text, kind: kindOf(text) });
      i = end;
    }
  }
  return out;
}

function kindOf(text: string): Token["kind"] {
  if ("([{".includes(text)) return "open";
  if (")]}".includes(text)) return "close";
  if (text === ",") return "comma";
  if (/^ +$/.test(text)) return "space";
  return /^["'`/]/.test(text) && text.length > 1 ? "string" : "other";
}

/** Where the token that starts at `i` ends. */
function tokenEnd(s: string, i: number, before: readonly Token[]): number | undefined {
  const c = s[i]!;
  if (c === " ") return /^ +/.exec(s.slice(i))![0].length + i;
  if ("()[]{},".includes(c)) return i + 1;
  if (c === '"' || c === "'" || c === "`") return quoted(s, i, c);
  if (c === "/") {
    if (s[i + 1] === "/" || s[i + 1] === "*") return undefined; // a comment
    const prev = [...before].reverse().find((t) => t.kind !== "space");
    if (prev === undefined || /[(,=:[!&|?{};]$/.test(prev.text) || prev.text === "return") return regexEnd(s, i);
  }
  const m = /^[^\s()[\]{},"'`]+/.exec(s.slice(i));
  return i + (m ? m[0].length : 1);
}

function quoted(s: string, i: number, q: string): number | undefined {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === "\\") j++;
    else if (q === "`" && s[j] === "$" && s[j + 1] === "{")
      return undefined; // code inside a template
    else if (s[j] === q) return j + 1;
  }
  return undefined;
}

function regexEnd(s: string, i: number): number | undefined {
  let inClass = false;
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === "\\") j++;
    else if (s[j] === "[") inClass = true;
    else if (s[j] === "]") inClass = false;
    else if (s[j] === "/" && !inClass) return /^\/[a-z]*/.exec(s.slice(j))![0].length + j;
  }
  return undefined;
}

const widthOf = (ts: readonly Token[]) => ts.reduce((n, t) => n + t.text.length, 0);
const sp = (n: string): Token => ({ piece: n, text: n, kind: "space" });
const text = (t: string): Token => ({ piece: t, text: t, kind: "other" });

function trim(ts: readonly Token[]): Token[] {
  let a = 0;
  let b = ts.length;
  while (a < b && ts[a]!.kind === "space") a++;
  while (b > a && ts[b - 1]!.kind === "space") b--;
  return ts.slice(a, b);
}

/** The depth of each token: brackets count toward their content, not themselves. */
function depths(ts: readonly Token[]): number[] {
  let d = 0;
  return ts.map((t) => {
    if (t.kind === "close") d--;
    const at = d;
    if (t.kind === "open") d++;
    return at;
  });
}

/** `tokens` (without indent) at `indent`, in lines of at most `width` where it can be. */
function layout(tokens: readonly Token[], indent: string, width: number): Token[][] {
  const one = [sp(indent), ...tokens];
  if (widthOf(one) <= width) return [one];
  return (
    ifStatement(tokens, indent, width) ??
    ternary(tokens, indent, width) ??
    bracket(tokens, indent, width) ??
    longString(tokens, indent, width) ?? [one]
  );
}

/** `if (cond) stmt` → `if (cond)` and the statement one level deeper. */
function ifStatement(ts: readonly Token[], indent: string, width: number): Token[][] | undefined {
  if (ts[0]?.text !== "if" || ts[2]?.text !== "(") return undefined;
  const d = depths(ts);
  const close = ts.findIndex((t, i) => i > 2 && t.kind === "close" && d[i] === 0);
  if (close < 0 || close === ts.length - 1) return undefined;
  const head = layout(ts.slice(0, close + 1), indent, width);
  return [...head, ...layout(trim(ts.slice(close + 1)), `${indent}  `, width)];
}

/**
 * A conditional at the top level: its condition, then `? a` and `: b` one level deeper (a line of a chain
 * that continues on the next line has no `: b`).
 */
function ternary(ts: readonly Token[], indent: string, width: number): Token[][] | undefined {
  const d = depths(ts);
  const at = (s: string, from: number) => ts.findIndex((t, i) => i >= from && d[i] === 0 && t.text === s);
  const q = at("?", 1);
  if (q < 0) return undefined;
  const c = at(":", q);
  const deeper = `${indent}  `;
  const cut = c < 0 ? [q] : [q, c];
  const parts = [0, ...cut].map((from, i) => trim(ts.slice(from, [...cut, ts.length][i])));
  return parts.flatMap((p, i) => layout(p, i === 0 ? indent : deeper, width));
}

/** The widest bracket at the top level, opened: its items on lines of their own. */
function bracket(ts: readonly Token[], indent: string, width: number): Token[][] | undefined {
  const d = depths(ts);
  let best: [number, number] | undefined;
  for (let i = 0; i < ts.length; i++) {
    if (ts[i]!.kind !== "open" || d[i] !== 0) continue;
    const close = ts.findIndex((t, j) => j > i && t.kind === "close" && d[j] === 0);
    if (close - i > 1 && (!best || widthOf(ts.slice(i, close)) > widthOf(ts.slice(best[0], best[1])))) {
      best = [i, close];
    }
  }
  if (!best) return undefined;
  let [open, close] = best;
  // A call of one object or array is opened at that argument: `f({`, its members, `});`.
  const only = trim(ts.slice(open + 1, close));
  const innerOpen = ts.indexOf(only[0]!, open + 1);
  if (ts[open]!.text === "(" && only[0]?.text !== "(" && only[0]?.kind === "open" && matches(only)) {
    [open, close] = [innerOpen, innerOpen + only.length - 1];
  }
  const parts = itemsOf(ts.slice(open + 1, close));
  if (parts === undefined) return undefined;
  // A trailing comma ends the items of a call, an object or an array; not those of other parentheses.
  const before = ts[open - 1]?.text ?? "";
  const call = /[\w$)\]]$/.test(before) && !/^(if|while|for|switch|return|typeof|await|void|in|of)$/.test(before);
  const comma = ts[open]!.text !== "(" || call ? [text(",")] : [];
  const deeper = `${indent}  `;
  const lines = [...layout(ts.slice(0, open + 1), indent, width)];
  // An item a line: arguments, parameters, members of an object or an array.
  for (const [i, p] of parts.entries()) {
    const item = [...p, ...(i < parts.length - 1 ? [text(",")] : comma)];
    lines.push(...withLast(layout(p, deeper, width - 1), item.slice(p.length)));
  }
  return [...lines, [sp(indent), ...trim(ts.slice(close))]];
}

/** Whether the tokens are one bracket group: the first opens, the last closes it. */
function matches(ts: readonly Token[]): boolean {
  const d = depths(ts);
  return ts[ts.length - 1]!.kind === "close" && d[ts.length - 1] === 0 && d.slice(1, -1).every((x) => x > 0);
}

/** The items of a bracket's content, split at its top-level commas; undefined for a `for` header. */
function itemsOf(inner: readonly Token[]): Token[][] | undefined {
  const id = depths(inner);
  if (inner.some((t, i) => id[i] === 0 && t.kind === "other" && t.text.includes(";"))) return undefined;
  const items: Token[][] = [[]];
  for (const [i, t] of inner.entries()) {
    if (t.kind === "comma" && id[i] === 0) items.push([]);
    else items[items.length - 1]!.push(t);
  }
  return items.map(trim).filter((x) => x.length > 0);
}

const withLast = (lines: Token[][], extra: readonly Token[]) =>
  lines.map((l, i) => (i === lines.length - 1 ? [...l, ...extra] : l));

/** A string too long for its line, split at a space into two strings joined by `+`. */
function longString(ts: readonly Token[], indent: string, width: number): Token[][] | undefined {
  if (ts.length !== 1 || ts[0]!.kind !== "string" || !/^["']/.test(ts[0]!.text)) return undefined;
  const s = ts[0]!.text;
  const q = s[0]!;
  const room = width - indent.length - 4;
  const cut = s.lastIndexOf(" ", room);
  if (cut <= 1) return undefined;
  const first = text(`${s.slice(0, cut + 1)}${q} +`);
  const rest = q + s.slice(cut + 1);
  return [[sp(indent), first], ...layout([{ piece: rest, text: rest, kind: "string" }], indent, width)];
}
