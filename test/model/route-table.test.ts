import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compareShapes, findOverlaps, MAX_OVERLAPS_PER_ROUTE, witness } from "../../src/model/route-table.js";
import { compilePathMatcher } from "../../packages/runtime/src/http/path-matcher.js";
import type { Route } from "../../packages/runtime/src/core/route-types.js";
import { readRoutes } from "../helpers/samples.js";
import { buildImage, request, runPlugin } from "../helpers/in-process.js";
import { repoRoot } from "../helpers/run.js";

const base = readRoutes("v1.0.1").routes[0]!;
const shape = fc.record({
  segments: fc.array(fc.constantFrom("a", "b", "*"), { minLength: 1, maxLength: 3 }),
  deep: fc.boolean(),
  method: fc.constantFrom("GET", "POST"),
  verb: fc.constantFrom(null, "v"),
});

function table(shapes: { segments: string[]; deep: boolean; method: string; verb: string | null }[]): Route[] {
  const routes = shapes.map((s, i) => ({
    ...base,
    operation: `Op${i}`,
    method: s.method,
    verb: s.verb,
    segments: s.deep ? [...s.segments, "**"] : s.segments,
    template: `/${(s.deep ? [...s.segments, "**"] : s.segments).join("/")}${s.verb ? ":" + s.verb : ""}`,
    variables: [],
  }));
  const byCodeUnits = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  routes.sort(
    (a, b) =>
      compareShapes(a.segments, b.segments) ||
      byCodeUnits(a.verb ?? "", b.verb ?? "") ||
      byCodeUnits(a.method, b.method),
  );
  return routes.map((r, i) => ({ ...r, priority: i + 1 }));
}

const sameShape = (a: Route, b: Route) =>
  a.method === b.method &&
  a.verb === b.verb &&
  a.segments.length === b.segments.length &&
  a.segments.every((s, i) => s === b.segments[i]);

describe("overlap report", () => {
  it("agrees with comparing every pair, and the matcher serves each example with the winner", () => {
    fc.assert(
      fc.property(fc.array(shape, { minLength: 1, maxLength: 12 }), (shapes) => {
        const routes = table(shapes);
        const dups: [Route, Route][] = [];
        const report = findOverlaps(routes, (a, b) => dups.push([a, b]));
        // Brute force over all pairs.
        const expected = new Map<Route, Route[]>();
        let expectedDups = 0;
        for (const a of routes) {
          for (const b of routes) {
            if (a === b || a.method !== b.method || a.verb !== b.verb || b.priority >= a.priority) continue;
            if (sameShape(a, b)) expectedDups++;
            else if (witness(a.segments, b.segments)) expected.set(a, [...(expected.get(a) ?? []), b]);
          }
        }
        expect(dups.length).toBe(expectedDups);
        if (expectedDups > 0) return; // a table with duplicates is rejected anyway
        const losers = new Set(report.map((o) => o.loserPriority));
        expect([...losers].sort()).toEqual([...expected.keys()].map((r) => r.priority).sort());
        const matcher = compilePathMatcher(routes);
        for (const [loser, winners] of expected) {
          const rows = report.filter((o) => o.loserPriority === loser.priority);
          expect(rows.map((o) => o.winnerPriority)).toEqual(
            winners
              .map((w) => w.priority)
              .sort((x, y) => x - y)
              .slice(0, MAX_OVERLAPS_PER_ROUTE),
          );
          for (const o of rows) {
            expect(o.winnersOfLoser).toBe(winners.length);
            const hit = matcher.match(o.method, o.example);
            // The example reaches the winner (or a route ranked above it), never the loser.
            expect(hit.status).toBe(200);
            if (hit.status === 200) expect(hit.route.priority).toBeLessThanOrEqual(o.winnerPriority);
          }
        }
      }),
      { numRuns: 1500 },
    );
  });
});

describe("route order", () => {
  it("breaks a tie between verbs by code units, whatever the machine's locale", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-route-ties-"));
    const overrides = join(dir, "ties.yaml");
    const version = [
      "  - id: protocol-version",
      "    target: api.protocolVersion",
      '    value: { version: "1.0", release: "1.0.0" }',
    ];
    const tail = ['    source: { document: "test", section: "1" }', '    decision: "t"'];
    writeFileSync(overrides, ["format: 2", "package: acme.ties.v1", "entries:", ...version, ...tail, ""].join("\n"));
    const image = buildImage([], [join(repoRoot, "test/fixtures/route-ties")]);
    const file = "acme/ties/v1/ties.proto";
    const r = runPlugin(request(image, [file], ["target=ts", `overrides=${overrides}`]));
    expect(r.error).toBeUndefined();
    const table = JSON.parse(r.files.get("acme/ties/v1/ties_routes.json") ?? "null") as { routes: Route[] };
    expect(table.routes.map((route) => [route.verb, route.operation, route.priority])).toEqual([
      ["Cancel", "CancelJob", 1],
      ["archive", "ArchiveJob", 2],
    ]);
  });
});
