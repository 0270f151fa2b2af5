/**
 * No import cycles among the generator's modules (src/) nor among the runtime's (packages/runtime/src/),
 * type-only imports included: each module depends on modules below it, so it can be read, tested and
 * moved on its own. The graph is read from the sources' relative import and export-from specifiers.
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph, specifiers } from "./helpers/import-graph.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Every cycle, each once, as the list of its modules relative to `dir` (depth-first, colouring). */
function cycles(graph: ReadonlyMap<string, readonly string[]>, dir: string): string[][] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (m: string) => {
    state.set(m, "open");
    stack.push(m);
    for (const next of graph.get(m) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") found.push(stack.slice(stack.indexOf(next)).map((x) => relative(dir, x)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(m, "done");
  };
  for (const m of graph.keys()) if (!state.has(m)) visit(m);
  return found;
}

describe("import cycles", () => {
  it.each(["src", "packages/runtime/src"])("%s has none", (tree) => {
    const dir = join(root, tree);
    const graph = importGraph(dir);
    expect(graph.size).toBeGreaterThan(10);
    expect(cycles(graph, dir)).toEqual([]);
  });

  it("finds a cycle, type-only imports included", () => {
    const graph = new Map([
      ["/x/a.ts", ["/x/b.ts"]],
      ["/x/b.ts", ["/x/c.ts"]],
      ["/x/c.ts", ["/x/a.ts"]],
      ["/x/d.ts", ["/x/a.ts"]],
    ]);
    expect(cycles(graph, "/x")).toEqual([["a.ts", "b.ts", "c.ts"]]);
    const text = [
      'import type { A } from "./a.js";',
      "import {\n  b,\n  type C,\n} from '../b.js';",
      'export { d } from "./d.js";',
      'import { e } from "node:fs";',
      'const f = "./not-an-import.js";',
    ].join("\n");
    expect(specifiers(text)).toEqual(["./a.js", "../b.js", "./d.js"]);
  });
});
