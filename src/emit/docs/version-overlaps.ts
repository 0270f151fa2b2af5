/**
 * Route tables of two versions → the paths both versions route.
 *
 * A dual-version server serves two versions at the same URLs and picks the
 * version by A2A-Version before matching a route, so two routes of different
 * versions never compete inside one table. They still overlap for a person or
 * a proxy reading the URL: one concrete path and HTTP method that both
 * versions route, to operations that may differ (the v0.3 route
 * `/v1/tasks/{id}` and the v1.0 route `/{tenant}/tasks/{id}` with tenant
 * "v1"). Rule: a route of the older table and a route of the newer one
 * overlap when they have the same HTTP method and verb and one path matches
 * both (route-table.ts `witness`). Each pair is listed once, with an example
 * path and the newer route's variables that the older route's literals fill.
 */
import type { Route } from "@protoc-gen-a2a/runtime/protocol";
import { type RouteTable, witness } from "../../model/route-table.js";

export interface VersionOverlap {
  readonly method: string;
  /** A concrete path both routes match, verb included. */
  readonly example: string;
  readonly older: Route;
  readonly newer: Route;
  /** Newer-route variables bound to a literal of the older route: field JSON name → the literal. */
  readonly captured: Readonly<Record<string, string>>;
}

type Routes = Pick<RouteTable, "routes" | "aliases">;

export function findVersionOverlaps(older: Routes, newer: Routes): VersionOverlap[] {
  const newerRoutes = [...newer.routes, ...newer.aliases];
  const out: VersionOverlap[] = [];
  for (const a of [...older.routes, ...older.aliases]) {
    for (const b of newerRoutes) {
      if (a.method !== b.method || a.verb !== b.verb) continue;
      const path = witness(a.segments, b.segments);
      if (!path) continue;
      out.push({
        method: a.method,
        example: `/${path.join("/")}${a.verb ? `:${a.verb}` : ""}`,
        older: a,
        newer: b,
        captured: captured(a, b),
      });
    }
  }
  return out.sort((x, y) => x.older.priority - y.older.priority || x.newer.priority - y.newer.priority);
}

/** The newer route's single-segment variables that sit where the older route has a literal. */
function captured(older: Route, newer: Route): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of newer.variables) {
    if (v.end - v.start !== 1) continue;
    const literal = older.segments[v.start];
    if (literal !== undefined && literal !== "*" && literal !== "**") out[v.jsonName] = literal;
  }
  return out;
}
