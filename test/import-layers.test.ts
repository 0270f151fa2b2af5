/**
 * The layers of the generator (src/) and of the runtime (packages/runtime/src/): each unit (a top-level
 * folder, or a file at the top) has a rank, and a module imports only from its own unit or from units of a
 * lower rank, so arrows only point down. Units of one rank do not import each other (the three bindings,
 * say). A unit that no layer names fails the test, so a new folder gets its place on purpose.
 *
 *   runtime  core (definition, protocol tables, route types, errors, invoke, limits, interceptors)
 *            < card (discovery, rules, interface selection, merging, signing)
 *            < http (the universal HTTP core: adapters, negotiation, paths, SSE, the client core)
 *            < jsonrpc, rest, grpc (one folder per binding)
 *            < compat (cross-version), task, auth, client (clients from a card, credentials)
 *            < otel (which instruments the task runtime) < server (the composition: one HTTP handler, both
 *            versions) < the entries (index.ts, protocol.ts)
 *   src      the shared bottom files (errors, options, assets, the package's paths, bounded reads)
 *            < model, sync, host < overrides, compat (plan) < emit (printing) < plugin.ts < main.ts (the
 *            binary's entry)
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph } from "./helpers/import-graph.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

type Layers = readonly (readonly string[])[];

const RUNTIME_LAYERS: Layers = [
  ["core"],
  ["card"],
  ["http"],
  ["jsonrpc", "rest", "grpc"],
  ["compat", "task", "auth", "client"],
  ["otel"],
  ["server", "frameworks"],
  ["index.ts", "protocol.ts"],
];

const GENERATOR_LAYERS: Layers = [
  ["generation-error.ts", "options.ts", "assets.ts", "package-paths.ts", "read-bounded.ts", "make-directory.ts"],
  ["model", "sync", "host"],
  ["overrides", "compat"],
  ["emit"],
  ["plugin.ts"],
  ["main.ts"],
];

/** A module's unit: its top-level folder under `dir`, or its file name at the top. */
const unitOf = (dir: string, file: string) => relative(dir, file).split("/")[0]!;

/** Each import that does not point down, as "from → to (unit rank → unit rank)"; and each unit without a rank. */
function violations(graph: ReadonlyMap<string, readonly string[]>, dir: string, layers: Layers): string[] {
  const rank = new Map(layers.flatMap((units, i) => units.map((u) => [u, i] as const)));
  const found = new Set<string>();
  for (const [from, targets] of graph) {
    const a = unitOf(dir, from);
    const ra = rank.get(a);
    if (ra === undefined) found.add(`${relative(dir, from)}: unit "${a}" is in no layer`);
    for (const to of targets) {
      const b = unitOf(dir, to);
      const rb = rank.get(b);
      if (a === b || rb === undefined || ra === undefined || rb < ra) continue;
      found.add(`${relative(dir, from)} → ${relative(dir, to)} (${a} ${ra} → ${b} ${rb})`);
    }
  }
  return [...found];
}

describe("import layers", () => {
  it.each([
    ["packages/runtime/src", RUNTIME_LAYERS],
    ["src", GENERATOR_LAYERS],
  ] as const)("%s: every import points down a layer", (tree, layers) => {
    const dir = join(root, tree);
    const graph = importGraph(dir);
    expect(graph.size).toBeGreaterThan(10);
    expect(violations(graph, dir, layers)).toEqual([]);
  });

  it("reports an import up a layer, one between units of a rank, and a unit without a layer", () => {
    const graph = new Map([
      ["/x/core/a.ts", ["/x/core/b.ts", "/x/http/c.ts"]],
      ["/x/http/c.ts", ["/x/core/a.ts"]],
      ["/x/rest/d.ts", ["/x/grpc/e.ts", "/x/http/c.ts"]],
      ["/x/grpc/e.ts", []],
      ["/x/extra/f.ts", ["/x/core/a.ts"]],
    ]);
    const layers: Layers = [["core"], ["http"], ["rest", "grpc"]];
    expect(violations(graph, "/x", layers)).toEqual([
      "core/a.ts → http/c.ts (core 0 → http 1)",
      "rest/d.ts → grpc/e.ts (rest 2 → grpc 2)",
      'extra/f.ts: unit "extra" is in no layer',
    ]);
  });
});
