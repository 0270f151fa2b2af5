/** Reads the committed route tables and Markdown pages in generated-samples/. */
import { readFileSync } from "node:fs";
import { sep } from "node:path";
import { fileURLToPath } from "node:url";
import { readTree } from "./run.js";
import type { Route } from "../../packages/runtime/src/core/route-types.js";

export interface RoutesDoc {
  protocolVersion: string;
  routes: Route[];
  aliases: Route[];
  overlaps: { method: string; example: string; winner: string; loser: string }[];
}

export function readRoutes(version: "v0.3.0" | "v1.0.1"): RoutesDoc {
  return JSON.parse(
    readFileSync(new URL(`../../generated-samples/${version}/a2a_routes.json`, import.meta.url), "utf8"),
  ) as RoutesDoc;
}

/** The committed Markdown pages of generated-samples/ by relative path (test/generate.test.ts proves them current). */
export function readMarkdownPages(): Map<string, string> {
  const pages = new Map<string, string>();
  for (const [path, bytes] of readTree(fileURLToPath(new URL("../../generated-samples/", import.meta.url)))) {
    if (path.endsWith(".md")) pages.set(path.split(sep).join("/"), bytes.toString("utf8"));
  }
  return new Map([...pages].sort(([a], [b]) => a.localeCompare(b)));
}
