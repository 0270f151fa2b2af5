/**
 * Route matching and URL expansion over a generated route table.
 *
 * The table is compiled once into a segment trie. Matching splits the path
 * on "/" once and walks the trie depth-first. At every level a literal child
 * is tried before "*", and "*" before "**", which is the documented overlap
 * rule: literal segments win, left to right. No regular expression is built
 * or run per request.
 *
 * - A custom verb is the text after the last ":" of the last segment. A path
 *   with a verb only matches routes with that verb, so `/tasks/abc:subscribe`
 *   never reaches `/tasks/{id}`. Clients encode ":" inside values as %3A.
 *   An empty verb (`/tasks/abc:`) is no route's verb: 404.
 * - "*" matches exactly one non-empty segment; it never matches "/" or "".
 * - Variables are decoded after matching (see path-codec.ts).
 * - When the path exists for other HTTP methods only, the result is 405 with
 *   the allowed methods; otherwise 404.
 */
import type { Route } from "../core/route-types.js";
import { decodeMultiSegmentValue, decodeSegmentValue, encodeSegmentValue } from "./path-codec.js";

interface TrieNode {
  /** Literal children; looked up by comparing characters in place, or by `literalMap` when there are many. */
  readonly literals: string[];
  readonly children: TrieNode[];
  literalMap: Map<string, TrieNode> | undefined;
  wildcard: TrieNode | undefined;
  /** Routes ending in "**" at this depth (a short list: scanned, not hashed). */
  deep: Route[] | undefined;
  /** Routes ending at this depth. */
  end: Route[] | undefined;
}

export type MatchResult<R extends Route = Route> =
  | { readonly status: 200; readonly route: R; readonly params: Record<string, string> }
  | { readonly status: 404 }
  | { readonly status: 405; readonly allow: readonly string[] }
  | { readonly status: 400; readonly reason: string };

export interface PathMatcher<R extends Route = Route> {
  match(method: string, path: string): MatchResult<R>;
}

const NOT_FOUND = Object.freeze({ status: 404 as const });
/** Above this many literal children a node also keeps a Map. */
const MAP_THRESHOLD = 8;
const SLASH = 47;
const newNode = (): TrieNode => ({
  literals: [],
  children: [],
  literalMap: undefined,
  wildcard: undefined,
  deep: undefined,
  end: undefined,
});

function literalChild(node: TrieNode, lit: string): TrieNode {
  const i = node.literals.indexOf(lit);
  if (i >= 0) return node.children[i]!;
  const child = newNode();
  node.literals.push(lit);
  node.children.push(child);
  if (node.literals.length > MAP_THRESHOLD)
    node.literalMap = new Map(node.literals.map((l, k) => [l, node.children[k]!]));
  return child;
}

function addRoute(root: TrieNode, route: Route): void {
  let node = root;
  const last = route.segments.length - 1;
  for (let i = 0; i <= last; i++) {
    const seg = route.segments[i]!;
    if (seg === "**") {
      if (i !== last) throw new Error(`route ${route.method} ${route.template}: "**" must be the last segment`);
      node.deep ??= [];
      slot(node.deep, route);
      return;
    }
    if (seg === "*") {
      node.wildcard ??= newNode();
      node = node.wildcard;
    } else node = literalChild(node, seg);
  }
  node.end ??= [];
  slot(node.end, route);
}

function slot(list: Route[], route: Route): void {
  const existing = pick(list, route.verb ?? "", route.method);
  if (existing) {
    throw new Error(
      `duplicate route ${route.method} ${route.template} (${route.operation}) ` +
        `and ${existing.template} (${existing.operation})`,
    );
  }
  list.push(route);
}

function pick(list: readonly Route[] | undefined, verb: string, method: string): Route | undefined {
  if (list === undefined) return undefined;
  for (let k = 0; k < list.length; k++) {
    const r = list[k]!;
    if (r.method === method && (r.verb ?? "") === verb) return r;
  }
  return undefined;
}

function methodsOf(list: readonly Route[] | undefined, verb: string, out: Set<string>): void {
  for (const r of list ?? []) if ((r.verb ?? "") === verb) out.add(r.method);
}

/** Segment start positions of the current match, by depth; reused by every call (matching is synchronous). */
let starts = new Int32Array(64);

/**
 * The request being matched. `pos` is where a segment starts; the segment
 * runs to the next "/" or to `end` (the start of ":verb", or the path's end).
 * `pos === end + 1` means every segment has been consumed.
 */
interface Req {
  readonly path: string;
  readonly end: number;
  readonly verb: string;
  readonly method: string;
}

function segmentEnd(req: Req, pos: number): number {
  const slash = req.path.indexOf("/", pos);
  return slash < 0 || slash > req.end ? req.end : slash;
}

function literalAt(node: TrieNode, path: string, pos: number, next: number): TrieNode | undefined {
  if (node.literalMap) return node.literalMap.get(path.slice(pos, next));
  const len = next - pos;
  const lits = node.literals;
  for (let k = 0; k < lits.length; k++) {
    const lit = lits[k]!;
    if (lit.length === len && path.startsWith(lit, pos)) return node.children[k];
  }
  return undefined;
}

/** Depth-first, literal before "*" before "**"; the first route found wins. Records segment starts. */
function find(node: TrieNode, req: Req, pos: number, depth: number): Route | undefined {
  if (depth + 1 >= starts.length) {
    const grown = new Int32Array(starts.length * 2);
    grown.set(starts);
    starts = grown;
  }
  starts[depth] = pos;
  if (pos > req.end) {
    const r = pick(node.end, req.verb, req.method);
    if (r) return r;
  } else {
    const next = segmentEnd(req, pos);
    const lit = node.literals.length > 0 ? literalAt(node, req.path, pos, next) : undefined;
    if (lit) {
      const r = find(lit, req, next + 1, depth + 1);
      if (r) return r;
    }
    if (node.wildcard !== undefined && next > pos) {
      const r = find(node.wildcard, req, next + 1, depth + 1);
      if (r) return r;
    }
  }
  const r = pick(node.deep, req.verb, req.method);
  if (r) starts[depth + 1] = req.end + 1;
  return r;
}

/** The methods of every route that matches the path (the slow path, only after a miss). */
function allowedMethods(node: TrieNode, req: Req, pos: number, out: Set<string>): void {
  if (pos > req.end) {
    methodsOf(node.end, req.verb, out);
  } else {
    const next = segmentEnd(req, pos);
    const lit = node.literals.length > 0 ? literalAt(node, req.path, pos, next) : undefined;
    if (lit) allowedMethods(lit, req, next + 1, out);
    if (node.wildcard && next > pos) allowedMethods(node.wildcard, req, next + 1, out);
  }
  methodsOf(node.deep, req.verb, out);
}

export function compilePathMatcher<R extends Route>(routes: readonly R[]): PathMatcher<R> {
  const root = newNode();
  for (const r of routes) addRoute(root, r);

  return {
    match(method, path) {
      if (path.charCodeAt(0) !== SLASH) return NOT_FOUND;
      const lastSlash = path.lastIndexOf("/");
      const colon = path.indexOf(":", lastSlash);
      if (colon === path.length - 1) return NOT_FOUND;
      const req: Req =
        colon < 0
          ? { path, end: path.length, verb: "", method }
          : { path, end: colon, verb: path.slice(colon + 1), method };
      const route = find(root, req, 1, 0) as R | undefined;
      if (!route) {
        const allowed = new Set<string>();
        allowedMethods(root, req, 1, allowed);
        return allowed.size > 0 ? { status: 405, allow: [...allowed].sort() } : NOT_FOUND;
      }
      try {
        return { status: 200, route, params: extractParams(route, req) };
      } catch {
        return { status: 400, reason: `malformed percent-encoding in ${path}` };
      }
    },
  };
}

/** Decodes the variables of the matched route, using the segment starts `find` recorded. */
function extractParams(route: Route, req: Req): Record<string, string> {
  // Keys come from the route table (proto field names), never from the request.
  const params: Record<string, string> = {};
  const vars = route.variables;
  for (let k = 0; k < vars.length; k++) {
    const v = vars[k]!;
    const from = starts[v.start]!;
    const to = Math.max(from, starts[v.end]! - 1);
    const raw = req.path.slice(from, to);
    params[v.field] =
      v.end - v.start === 1 && route.segments[v.start] === "*" ? decodeSegmentValue(raw) : decodeMultiSegmentValue(raw);
  }
  return params;
}

export class PathExpansionError extends Error {
  override name = "PathExpansionError";
}

/**
 * Builds the URL path of a route from variable values (keyed by proto field
 * path). A value must fit the variable's own pattern, e.g. "tasks/abc" for
 * `{name=tasks/*}`.
 */
export function expandPath(route: Route, values: Readonly<Record<string, string | undefined>>): string {
  const out: string[] = [];
  let i = 0;
  for (const v of route.variables) {
    while (i < v.start) out.push(route.segments[i++]!);
    const value = values[v.field];
    if (value === undefined) {
      throw new PathExpansionError(`${route.operation}: ${route.template} needs a value for "${v.field}"`);
    }
    const pattern = route.segments.slice(v.start, v.end);
    if (pattern.length === 1 && pattern[0] === "*") {
      if (value === "") throw new PathExpansionError(`${route.operation}: "${v.field}" must not be empty`);
      out.push(pathSegment(route, v.field, value));
    } else {
      out.push(expandPattern(route, v.field, pattern, value));
    }
    i = v.end;
  }
  while (i < route.segments.length) out.push(route.segments[i++]!);
  return "/" + out.join("/") + (route.verb !== null ? ":" + route.verb : "");
}

function expandPattern(route: Route, field: string, pattern: readonly string[], value: string): string {
  const parts = value.split("/");
  const deep = pattern[pattern.length - 1] === "**";
  const fixed = deep ? pattern.length - 1 : pattern.length;
  const fits =
    (deep ? parts.length >= fixed : parts.length === fixed) &&
    pattern.slice(0, fixed).every((p, k) => (p === "*" ? parts[k] !== "" : p === parts[k]));
  if (!fits) {
    throw new PathExpansionError(
      `${route.operation}: "${field}" = "${value}" does not fit the pattern ${pattern.join("/")} of ${route.template}`,
    );
  }
  return parts.map((p, k) => (k < fixed && pattern[k] !== "*" ? p : pathSegment(route, field, p))).join("/");
}

/**
 * A value as one path segment, encoded; "." and ".." are refused: URL parsers (fetch's included) take them, and
 * their encodings %2E and %2E%2E, as dot segments, and the request would go to another path.
 */
function pathSegment(route: Route, field: string, value: string): string {
  if (value === "." || value === "..") {
    throw new PathExpansionError(`${route.operation}: "${field}" = "${value}" cannot be sent in ${route.template}`);
  }
  return encodeSegmentValue(value);
}
