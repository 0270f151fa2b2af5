/** Reads the committed route tables in generated-samples/. */
import { readFileSync } from "node:fs";
import type { Route } from "../../packages/runtime/src/route-types.js";

export interface RoutesDoc {
  protocolVersion: string;
  routes: Route[];
  aliases: Route[];
  overlaps: { method: string; example: string; winner: string; loser: string }[];
}

export function readRoutes(version: "v0.3.0" | "v1.0.1"): RoutesDoc {
  return JSON.parse(readFileSync(new URL(`../../generated-samples/${version}/a2a_routes.json`, import.meta.url), "utf8")) as RoutesDoc;
}
