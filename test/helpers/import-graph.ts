/**
 * The import graph of a source tree, read from its relative import and export-from specifiers (type-only ones
 * included, `.js` read as `.ts`): what test/import-cycles.test.ts and test/import-layers.test.ts check.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The relative modules a source imports or re-exports from, type-only ones included, as written. */
export function specifiers(text: string): string[] {
  const specifier = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g;
  return [...text.matchAll(specifier)].map((m) => m[1]!);
}

/** Module → the modules of the same tree it imports, as absolute paths. */
export function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(dir)) {
    const targets = specifiers(readFileSync(file, "utf8")).map((s) =>
      resolve(dirname(file), s.replace(/\.js$/, ".ts")),
    );
    graph.set(file, targets);
  }
  return graph;
}
