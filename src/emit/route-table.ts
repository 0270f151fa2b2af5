/**
 * ApiModel → route table: every binding of every operation, ordered by match
 * priority, with overlaps reported and exact duplicates rejected.
 *
 * Priorities are numbered over routes and aliases together, since a server
 * matches both.
 *
 * Priority rule (the same the runtime matcher follows): compare two routes
 * segment by segment from the left; at the first difference a literal beats
 * "*", and "*" beats "**". Ties fall back to more segments first, then the
 * HTTP method, then the operation name, so the order is total and stable.
 *
 * Two routes overlap when one concrete path and HTTP method match both; the
 * report gives such a path and which route wins it. Two routes with the same
 * method, verb and segment shape (variable names aside) are duplicates: one
 * could never be reached, so generation stops.
 */
import type { ApiModel, BindingModel, OperationModel } from "../model/model-types.js";
import type { Route, RouteOverlap } from "../runtime/route-types.js";
import type { Problems } from "../generation-error.js";

const rank = (seg: string) => (seg === "**" ? 2 : seg === "*" ? 1 : 0);

export function compareShapes(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = rank(a[i]!) - rank(b[i]!);
    if (d !== 0) return d;
    if (rank(a[i]!) === 0 && a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return b.length - a.length;
}

export interface RouteTable {
  /** The bindings of the proto's google.api.http rules. */
  readonly routes: readonly Route[];
  /** Extra routes servers accept because an override says so (e.g. the specification's verb). */
  readonly aliases: readonly Route[];
  readonly overlaps: readonly RouteOverlap[];
}

export function buildRouteTable(model: ApiModel, problems: Problems): RouteTable {
  const unsorted = model.operations.flatMap((op) => op.bindings.map((b) => toRoute(model, op, b)));
  unsorted.sort(
    (a, b) =>
      compareShapes(a.segments, b.segments) ||
      (a.verb ?? "").localeCompare(b.verb ?? "") ||
      a.method.localeCompare(b.method) ||
      a.operation.localeCompare(b.operation),
  );
  const all = unsorted.map((r, i) => ({ ...r, priority: i + 1 }));
  const routes = all;
  const overlaps: RouteOverlap[] = [];
  for (let i = 0; i < routes.length; i++) {
    for (let j = i + 1; j < routes.length; j++) {
      const a = routes[i]!;
      const b = routes[j]!;
      if (a.method !== b.method || a.verb !== b.verb) continue;
      if (sameShape(a.segments, b.segments)) {
        problems.add(
          `${model.protoFile}: duplicate route ${a.method} ${a.template} (${a.operation}, ${a.origin}) and ${b.method} ${b.template} (${b.operation}, ${b.origin}) match exactly the same paths`,
        );
        continue;
      }
      const example = witness(a.segments, b.segments);
      if (example) {
        overlaps.push({
          method: a.method,
          example: "/" + example.join("/") + (a.verb ? ":" + a.verb : ""),
          winner: `${a.operation} ${a.template}`,
          loser: `${b.operation} ${b.template}`,
        });
      }
    }
  }
  return {
    routes: all.filter((r) => r.origin !== "override"),
    aliases: all.filter((r) => r.origin === "override"),
    overlaps,
  };
}

function sameShape(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => (rank(s) === 0 ? s === b[i] : rank(s) === rank(b[i]!)));
}

/** A concrete path matched by both segment lists, or undefined when none exists. */
function witness(a: readonly string[], b: readonly string[]): string[] | undefined {
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
