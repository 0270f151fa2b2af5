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
 * - "*" matches exactly one non-empty segment; it never matches "/" or "".
 * - Variables are decoded after matching (see path-codec.ts).
 * - When the path exists for other HTTP methods only, the result is 405 with
 *   the allowed methods; otherwise 404.
 */
import type { Route } from "./route-types.js";
import {
  decodeMultiSegmentValue,
  decodeSegmentValue,
  encodeSegmentValue,
} from "./path-codec.js";

interface TrieNode {
  readonly literal: Map<string, TrieNode>;
  wildcard: TrieNode | undefined;
  /** Routes ending in "**" at this depth, by verb key. */
  readonly deep: Map<string, Map<string, Route>>;
  /** Routes ending at this depth, by verb key then HTTP method. */
  readonly end: Map<string, Map<string, Route>>;
}

export type MatchResult<R extends Route = Route> =
  | { readonly status: 200; readonly route: R; readonly params: Record<string, string> }
  | { readonly status: 404 }
  | { readonly status: 405; readonly allow: readonly string[] }
  | { readonly status: 400; readonly reason: string };

export interface PathMatcher<R extends Route = Route> {
  match(method: string, path: string): MatchResult<R>;
}

const newNode = (): TrieNode => ({ literal: new Map(), wildcard: undefined, deep: new Map(), end: new Map() });
const verbKey = (verb: string | null) => verb ?? "";

function addRoute(root: TrieNode, route: Route): void {
  let node = root;
  const last = route.segments.length - 1;
  for (let i = 0; i <= last; i++) {
    const seg = route.segments[i]!;
    if (seg === "**") {
      if (i !== last) throw new Error(`route ${route.method} ${route.template}: "**" must be the last segment`);
      slot(node.deep, route);
      return;
    }
    if (seg === "*") {
      node = node.wildcard ??= newNode();
    } else {
      let next = node.literal.get(seg);
      if (!next) node.literal.set(seg, (next = newNode()));
      node = next;
    }
  }
  slot(node.end, route);
}

function slot(byVerb: Map<string, Map<string, Route>>, route: Route): void {
  let byMethod = byVerb.get(verbKey(route.verb));
  if (!byMethod) byVerb.set(verbKey(route.verb), (byMethod = new Map()));
  const existing = byMethod.get(route.method);
  if (existing) {
    throw new Error(
      `duplicate route ${route.method} ${route.template} (${route.operation}) and ${existing.template} (${existing.operation})`,
    );
  }
  byMethod.set(route.method, route);
}

export function compilePathMatcher<R extends Route>(routes: readonly R[]): PathMatcher<R> {
  const root = newNode();
  for (const r of routes) addRoute(root, r);

  return {
    match(method, path) {
      if (path.length === 0 || path.charCodeAt(0) !== 47 /* "/" */) return { status: 404 };
      const segs = path.slice(1).split("/");
      let verb = "";
      const lastSeg = segs[segs.length - 1]!;
      const colon = lastSeg.lastIndexOf(":");
      if (colon >= 0) {
        verb = lastSeg.slice(colon + 1);
        segs[segs.length - 1] = lastSeg.slice(0, colon);
      }
      const allowed = new Set<string>();
      let found: Route | undefined;

      const visit = (node: TrieNode, i: number): boolean => {
        if (i === segs.length) {
          const byMethod = node.end.get(verb);
          if (byMethod) {
            const r = byMethod.get(method);
            if (r) return ((found = r), true);
            for (const m of byMethod.keys()) allowed.add(m);
          }
        } else {
          const seg = segs[i]!;
          const lit = node.literal.get(seg);
          if (lit && visit(lit, i + 1)) return true;
          if (node.wildcard && seg.length > 0 && visit(node.wildcard, i + 1)) return true;
        }
        const deep = node.deep.get(verb);
        if (deep) {
          const r = deep.get(method);
          if (r) return ((found = r), true);
          for (const m of deep.keys()) allowed.add(m);
        }
        return false;
      };

      if (!visit(root, 0) || !found) {
        return allowed.size > 0 ? { status: 405, allow: [...allowed].sort() } : { status: 404 };
      }
      const route = found as R;
      try {
        return { status: 200, route, params: extractParams(route, segs) };
      } catch {
        return { status: 400, reason: `malformed percent-encoding in ${path}` };
      }
    },
  };
}

function extractParams(route: Route, segs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = Object.create(null);
  const deepAt = route.segments[route.segments.length - 1] === "**" ? route.segments.length - 1 : -1;
  for (const v of route.variables) {
    const end = v.end - 1 === deepAt ? segs.length : v.end;
    const single = end - v.start === 1 && route.segments[v.start] === "*";
    params[v.field] = single
      ? decodeSegmentValue(segs[v.start]!)
      : decodeMultiSegmentValue(segs.slice(v.start, end).join("/"));
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
      out.push(encodeSegmentValue(value));
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
  return parts.map((p, k) => (k < fixed && pattern[k] !== "*" ? p : encodeSegmentValue(p))).join("/");
}
