import { describe, expect, it } from "vitest";
import { findVersionOverlaps } from "../../src/emit/docs/version-overlaps.js";
import { compilePathMatcher } from "../../packages/runtime/src/http/path-matcher.js";
import type { Route } from "../../packages/runtime/src/core/route-types.js";
import { readMarkdownPages, readRoutes } from "../helpers/samples.js";

const older = readRoutes("v0.3.0");
const newer = readRoutes("v1.0.1");
const all = (t: { routes: Route[]; aliases: Route[] }) => [...t.routes, ...t.aliases];

describe("paths both versions route (a2a_versions.md)", () => {
  const overlaps = findVersionOverlaps(older, newer);

  it("finds every v0.3 route that a v1.0 tenant route also matches, with tenant v1", () => {
    expect(overlaps.map((o) => `${o.method} ${o.example}`)).toEqual([
      "POST /v1/message:send",
      "POST /v1/message:stream",
      "DELETE /v1/tasks/x/pushNotificationConfigs/x",
      "GET /v1/tasks/x/pushNotificationConfigs/x",
      "GET /v1/tasks/x/pushNotificationConfigs",
      "POST /v1/tasks/x/pushNotificationConfigs",
      "GET /v1/tasks/x",
      "POST /v1/tasks/x:cancel",
      "GET /v1/tasks/x:subscribe",
      "POST /v1/tasks/x:subscribe",
    ]);
    for (const o of overlaps) {
      expect(o.newer.tenantVariant).toBe(true);
      expect(o.captured).toEqual({ tenant: "v1" });
    }
  });

  it("gives examples that each version's own matcher routes to the listed route", () => {
    const oldMatcher = compilePathMatcher(all(older));
    const newMatcher = compilePathMatcher(all(newer));
    for (const o of overlaps) {
      const a = oldMatcher.match(o.method, o.example);
      const b = newMatcher.match(o.method, o.example);
      expect(a.status === 200 && a.route.template, o.example).toBe(o.older.template);
      expect(b.status === 200 && b.route.template, o.example).toBe(o.newer.template);
    }
  });

  it("is complete: no other v0.3 example path is routed by v1.0", () => {
    const newMatcher = compilePathMatcher(all(newer));
    const listed = new Set(overlaps.map((o) => `${o.method} ${o.example}`));
    for (const r of all(older)) {
      const example = `/${r.segments.map((s) => (s === "*" || s === "**" ? "x" : s)).join("/")}${r.verb ? `:${r.verb}` : ""}`;
      const hit = newMatcher.match(r.method, example);
      expect(hit.status === 200, `${r.method} ${example}`).toBe(listed.has(`${r.method} ${example}`));
    }
  });

  it("is listed in the committed a2a_versions.md", () => {
    const page = readMarkdownPages().get("a2a_versions.md")!;
    expect(page).toContain("## Paths both v0.3.0 and v1.0.1 route");
    expect(page).toContain(
      '| GET | `/v1/tasks/x` | GetTask `/v1/{name=tasks/*}` | GetTask `/{tenant}/tasks/{id=*}` | `tenant` = `"v1"` |',
    );
  });
});
