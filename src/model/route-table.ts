/**
 * ApiModel → route table: every binding of every operation, ordered by match
 * priority, with overlaps reported and exact duplicates rejected.
 *
 * Priorities are numbered over routes and aliases together, since a server
 * matches both.
 *
 * Priority rule (the same the runtime matcher follows): compare two routes
 * segment by segment from the left; at the first difference a literal beats
 * "*", "*" beats the end of a route, and the end beats "**". Ties fall back to
 * the verb, the HTTP method, then the operation name, so the order is total
 * and stable. Names compare by UTF-16 code units, not by a locale's collation,
 * which would make the order depend on the machine (and costs some 10 ms of a
 * plugin process, whose code runs cold).
 *
 * Two routes overlap when one concrete path and HTTP method match both; the
 * report gives such a path and which route wins it, for at most three winners
 * per losing route, with their total. Two routes with the same
 * method, verb and segment shape (variable names aside) are duplicates: one
 * could never be reached, so generation stops.
 */
import type { ApiModel, BindingModel, OperationModel } from "./model-types.js";
import type { Route, RouteOverlap } from "@protoc-gen-a2a/runtime/protocol";
import type { Problems } from "../generation-error.js";

const rank = (seg: string | undefined) => (seg === undefined ? 1.5 : seg === "**" ? 2 : seg === "*" ? 1 : 0);

/** Literal < "*" < the route's end < "**", position by position: the matcher's own order. */
export function compareShapes(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = rank(a[i]) - rank(b[i]);
    if (d !== 0) return d;
    if (rank(a[i]) === 0 && a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}

/** Orders two strings by their UTF-16 code units, as Array.prototype.sort does by default. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface RouteTable {
  /** The bindings of the proto's google.api.http rules. */
  readonly routes: readonly Route[];
  /** Extra routes servers accept because an override says so (e.g. the specification's verb). */
  readonly aliases: readonly Route[];
  readonly overlaps: readonly RouteOverlap[];
}

/** An overlap report lists at most this many winning routes for each losing route, with the total. */
export const MAX_OVERLAPS_PER_ROUTE = 3;

export function buildRouteTable(model: ApiModel, problems: Problems): RouteTable {
  const unsorted = model.operations.flatMap((op) => op.bindings.map((b) => toRoute(model, op, b)));
  unsorted.sort(
    (a, b) =>
      compareShapes(a.segments, b.segments) ||
      byCodeUnits(a.verb ?? "", b.verb ?? "") ||
      byCodeUnits(a.method, b.method) ||
      byCodeUnits(a.operation, b.operation),
  );
  const all = unsorted.map((r, i) => ({ ...r, priority: i + 1 }));
  const overlaps = findOverlaps(all, (a, b) =>
    problems.add(
      `${model.protoFile}: duplicate route ${a.method} ${a.template} (${a.operation}, ${a.origin}) ` +
        `and ${b.method} ${b.template} (${b.operation}, ${b.origin}) match exactly the same paths`,
    ),
  );
  return {
    routes: all.filter((r) => r.origin !== "override"),
    aliases: all.filter((r) => r.origin === "override"),
    overlaps,
  };
}

/**
 * Overlaps without comparing every pair of routes. Routes without "**" can
 * only overlap when method, verb and length agree; among those, group by the
 * set of "*" positions (the mask). Two routes of masks A and B overlap exactly
 * when their literals agree on the positions where both are literal, so a hash
 * of B on those positions finds, for each route of A, every route of B that
 * overlaps it. The few "**" routes are compared with the others one by one.
 * Cost: linear in the routes times the number of masks, plus the overlaps reported.
 */
export function findOverlaps(routes: readonly Route[], duplicate: (a: Route, b: Route) => void): RouteOverlap[] {
  const found = new Overlaps();
  const { groups, deep } = groupByMask(routes);
  for (const masks of groups.values()) overlapsAmongMasks(masks, duplicate, found);
  for (const d of deep) {
    for (const r of routes) {
      if (r === d || r.method !== d.method || r.verb !== d.verb || !witness(d.segments, r.segments)) continue;
      if (sameShape(d.segments, r.segments)) {
        if (r.priority < d.priority) duplicate(r, d);
        continue;
      }
      if (deep.includes(r) && r.priority < d.priority) continue; // a pair of "**" routes: counted from the other side
      const [winner, loser] = r.priority < d.priority ? [r, d] : [d, r];
      found.record(loser, 1, [winner]);
    }
  }
  return found.report();
}

/** Each losing route, the routes that win some of its paths, and how many do in all. */
class Overlaps {
  private readonly found = new Map<Route, { winners: Route[]; total: number }>();

  record(loser: Route, count: number, winners: readonly Route[]): void {
    let entry = this.found.get(loser);
    if (!entry) {
      entry = { winners: [], total: 0 };
      this.found.set(loser, entry);
    }
    entry.total += count;
    entry.winners.push(...winners);
  }

  /** At most MAX_OVERLAPS_PER_ROUTE winners per loser, each with an example path; losers by priority. */
  report(): RouteOverlap[] {
    const out: RouteOverlap[] = [];
    for (const [loser, { winners, total }] of this.found) {
      const top = [...new Set(winners)].sort((x, y) => x.priority - y.priority).slice(0, MAX_OVERLAPS_PER_ROUTE);
      for (const winner of top) {
        const example = witness(winner.segments, loser.segments)!;
        out.push({
          method: loser.method,
          example: "/" + example.join("/") + (loser.verb ? ":" + loser.verb : ""),
          winner: `${winner.operation} ${winner.template}`,
          loser: `${loser.operation} ${loser.template}`,
          winnersOfLoser: total,
          winnerPriority: winner.priority,
          loserPriority: loser.priority,
        });
      }
    }
    return out.sort((a, b) => a.loserPriority - b.loserPriority || a.winnerPriority - b.winnerPriority);
  }
}

/** Routes without "**" by method, verb and length, then by mask; the "**" routes apart. */
function groupByMask(routes: readonly Route[]): { groups: Map<string, Map<string, Route[]>>; deep: Route[] } {
  const groups = new Map<string, Map<string, Route[]>>();
  const deep: Route[] = [];
  for (const r of routes) {
    if (r.segments[r.segments.length - 1] === "**") {
      deep.push(r);
      continue;
    }
    const key = `${r.method} ${r.verb ?? ""} ${r.segments.length}`;
    let masks = groups.get(key);
    if (!masks) {
      masks = new Map<string, Route[]>();
      groups.set(key, masks);
    }
    const mask = r.segments.map((s) => (s === "*" ? "*" : "L")).join("");
    let list = masks.get(mask);
    if (!list) {
      list = [];
      masks.set(mask, list);
    }
    list.push(r); // routes arrive in priority order
  }
  return { groups, deep };
}

/** Within one group: for each pair of masks, the routes of B that overlap each route of A, by a hash of B. */
function overlapsAmongMasks(
  masks: ReadonlyMap<string, readonly Route[]>,
  duplicate: (a: Route, b: Route) => void,
  found: Overlaps,
): void {
  const entries = [...masks.entries()];
  for (const [maskA, listA] of entries) {
    for (const [maskB, listB] of entries) {
      const shared: number[] = [];
      for (let i = 0; i < maskA.length; i++) if (maskA[i] === "L" && maskB[i] === "L") shared.push(i);
      const project = (r: Route) => shared.map((i) => r.segments[i]).join("/");
      const index = new Map<string, Route[]>();
      for (const b of listB) {
        const k = project(b);
        const bucket = index.get(k);
        if (bucket) bucket.push(b);
        else index.set(k, [b]);
      }
      for (const a of listA) {
        const bucket = index.get(project(a));
        if (!bucket) continue;
        if (maskA === maskB) {
          for (const b of bucket) if (b !== a && b.priority < a.priority) duplicate(b, a);
          continue;
        }
        let count = 0;
        while (count < bucket.length && bucket[count]!.priority < a.priority) count++;
        if (count > 0) found.record(a, count, bucket.slice(0, Math.min(count, MAX_OVERLAPS_PER_ROUTE)));
      }
    }
  }
}

function sameShape(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => (rank(s) === 0 ? s === b[i] : rank(s) === rank(b[i]!)));
}

/** A concrete path matched by both segment lists, or undefined when none exists. */
export function witness(a: readonly string[], b: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const x = a[i];
    const y = b[i];
    if (x === "**" || y === "**") {
      const rest = (x === "**" ? b : a).slice(i).filter((s) => s !== "**");
      return [...out, ...rest.map((s) => (rank(s) === 0 ? s : "x"))];
    }
    if (x === undefined || y === undefined) return x === y ? out : undefined;
    if (rank(x) === 0 && rank(y) === 0 && x !== y) return undefined;
    out.push(rank(x) === 0 ? x : rank(y) === 0 ? y : "x");
  }
}

function toRoute(model: ApiModel, op: OperationModel, b: BindingModel): Omit<Route, "priority"> {
  const ct = model.contentTypes.rest;
  return {
    operation: op.name,
    method: b.method,
    template: b.template.text,
    segments: b.segments,
    verb: b.verb,
    variables: b.variables,
    body: b.body,
    bodyFields: b.bodyFields,
    queryFields: b.queryFields,
    responseBody: b.responseBody,
    tenantVariant: b.tenantVariant,
    origin: b.origin,
    requestContentType: b.body === null ? null : ct.request,
    responseContentType: op.serverStreaming ? ct.stream : ct.response,
    streaming: op.serverStreaming,
  };
}
