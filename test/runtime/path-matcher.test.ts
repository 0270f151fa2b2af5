import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compilePathMatcher, expandPath } from "../../packages/runtime/src/http/path-matcher.js";
import { readRoutes } from "../helpers/samples.js";

const v1 = readRoutes("v1.0.1");
const v03 = readRoutes("v0.3.0");
const m1 = compilePathMatcher([...v1.routes, ...v1.aliases]);
const m03 = compilePathMatcher([...v03.routes, ...v03.aliases]);

const hit = (m: typeof m1, method: string, path: string) => {
  const r = m.match(method, path);
  return r.status === 200 ? { op: r.route.operation, template: r.route.template, params: { ...r.params } } : r;
};

/** Values a path cannot carry (URL parsers take them, encoded or not, as dot segments): the client refuses them. */
const DOTS = [".", ".."];

describe("path matcher over the v1.0.1 routes", () => {
  it("matches literal routes and variables", () => {
    expect(hit(m1, "POST", "/message:send")).toMatchObject({ op: "SendMessage", params: {} });
    expect(hit(m1, "GET", "/tasks/abc")).toMatchObject({ op: "GetTask", params: { id: "abc" } });
    expect(hit(m1, "GET", "/acme/tasks/abc")).toMatchObject({ op: "GetTask", params: { tenant: "acme", id: "abc" } });
    expect(hit(m1, "DELETE", "/t/tasks/a/pushNotificationConfigs/c")).toMatchObject({
      op: "DeleteTaskPushNotificationConfig",
      params: { tenant: "t", task_id: "a", id: "c" },
    });
  });

  it("never lets /tasks/abc:subscribe reach GetTask", () => {
    expect(hit(m1, "GET", "/tasks/abc:subscribe")).toMatchObject({ op: "SubscribeToTask", params: { id: "abc" } });
    expect(hit(m1, "DELETE", "/tasks/abc:subscribe")).toEqual({ status: 405, allow: ["GET", "POST"] });
    expect(hit(m1, "GET", "/tasks/abc:unknownverb")).toEqual({ status: 404 });
  });

  it("matches no route for an empty verb: /tasks/abc: is not GetTask", () => {
    expect(hit(m1, "GET", "/tasks/abc:")).toEqual({ status: 404 });
    expect(hit(m1, "POST", "/tasks/abc:")).toEqual({ status: 404 });
    expect(hit(m1, "GET", "/acme/tasks/abc:")).toEqual({ status: 404 });
    expect(hit(m1, "POST", "/message:")).toEqual({ status: 404 });
    expect(hit(m03, "GET", "/v1/tasks/abc:")).toEqual({ status: 404 });
  });

  it("serves the POST alias of SubscribeToTask", () => {
    expect(hit(m1, "POST", "/tasks/abc:subscribe")).toMatchObject({
      op: "SubscribeToTask",
      template: "/tasks/{id=*}:subscribe",
    });
  });

  it("resolves the documented overlap by the literal-first rule", () => {
    expect(hit(m1, "GET", "/tasks/tasks/pushNotificationConfigs")).toMatchObject({
      op: "ListTaskPushNotificationConfigs",
      params: { task_id: "tasks" },
    });
    expect(v1.overlaps).toContainEqual(
      expect.objectContaining({
        method: "GET",
        example: "/tasks/tasks/pushNotificationConfigs",
        winner: expect.stringContaining("ListTaskPushNotificationConfigs"),
      }),
    );
  });

  it("a single-segment variable never matches an empty segment or a slash", () => {
    expect(hit(m1, "GET", "/tasks/")).toEqual({ status: 404 });
    expect(hit(m1, "GET", "/tasks//x")).toEqual({ status: 404 });
    expect(hit(m1, "POST", "/tasks/:cancel")).toEqual({ status: 404 });
    // An encoded slash stays inside the segment and is decoded after matching.
    expect(hit(m1, "GET", "/tasks/a%2Fb")).toMatchObject({ op: "GetTask", params: { id: "a/b" } });
    expect(hit(m1, "GET", "/tasks/a%3Asubscribe")).toMatchObject({ op: "GetTask", params: { id: "a:subscribe" } });
  });

  it("tells 404 from 405", () => {
    expect(hit(m1, "PUT", "/tasks/abc")).toEqual({ status: 405, allow: ["GET"] });
    expect(hit(m1, "PATCH", "/message:send")).toEqual({ status: 405, allow: ["POST"] });
    expect(hit(m1, "GET", "/nothing/here/at/all/x")).toEqual({ status: 404 });
    expect(hit(m1, "GET", "no-leading-slash")).toEqual({ status: 404 });
  });

  it("answers 400 for a malformed escape in a variable", () => {
    expect(m1.match("GET", "/tasks/%E0%A4%A")).toMatchObject({ status: 400 });
  });

  it("expand then match returns the same values, whatever the characters", () => {
    const value = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).filter((s) => !DOTS.includes(s));
    const withSpecials = fc.oneof(
      value,
      fc.constantFrom("a/b", "%", "%2F", "a b", "日本", "x:y", "../..", "?#&=", "é/ü"),
    );
    const tenantRoutes = v1.routes.filter((r) => r.tenantVariant);
    fc.assert(
      fc.property(fc.constantFrom(...tenantRoutes), withSpecials, withSpecials, withSpecials, (route, a, b, c) => {
        const values: Record<string, string> = {};
        const given = [a, b, c];
        for (const [i, v] of route.variables.entries()) values[v.field] = given[i]!;
        const path = expandPath(route, values);
        const r = m1.match(route.method, path);
        expect(r.status).toBe(200);
        if (r.status === 200) {
          expect(r.route.operation).toBe(route.operation);
          expect({ ...r.params }).toEqual(values);
        }
      }),
      { numRuns: 1500 },
    );
  });
});

describe("path matcher over the v0.3.0 routes (resource names)", () => {
  it("binds whole resource names", () => {
    expect(hit(m03, "GET", "/v1/tasks/t1/pushNotificationConfigs/c1")).toMatchObject({
      op: "GetTaskPushNotificationConfig",
      params: { name: "tasks/t1/pushNotificationConfigs/c1" },
    });
    expect(hit(m03, "POST", "/v1/task/t1/pushNotificationConfigs")).toMatchObject({
      op: "CreateTaskPushNotificationConfig",
      params: { parent: "task/t1/pushNotificationConfigs" },
    });
    expect(hit(m03, "POST", "/v1/tasks/t1/pushNotificationConfigs")).toMatchObject({
      op: "CreateTaskPushNotificationConfig",
      params: { parent: "tasks/t1" },
    });
  });

  it("keeps an encoded slash encoded inside a multi-segment value", () => {
    expect(hit(m03, "GET", "/v1/tasks/a%2Fb")).toMatchObject({ params: { name: "tasks/a%2Fb" } });
  });

  it("expand → match round-trips resource-name values", () => {
    const id = fc
      .string({ unit: "grapheme", minLength: 1, maxLength: 10 })
      .filter((s) => !s.includes("/") && !DOTS.includes(s));
    const get = v03.routes.find((r) => r.operation === "GetTaskPushNotificationConfig")!;
    fc.assert(
      fc.property(id, id, (task, cfg) => {
        const name = `tasks/${task}/pushNotificationConfigs/${cfg}`;
        const r = m03.match("GET", expandPath(get, { name }));
        expect(r.status === 200 && r.params["name"]).toBe(name);
      }),
      { numRuns: 500 },
    );
    expect(() => expandPath(get, { name: "tasks/a" })).toThrow(/does not fit the pattern/);
  });
});

describe("compiling", () => {
  it("rejects exact duplicates", () => {
    const r = v1.routes.find((x) => x.operation === "GetTask" && !x.tenantVariant)!;
    expect(() =>
      compilePathMatcher([r, { ...r, operation: "Other", variables: [{ ...r.variables[0]!, field: "name" }] }]),
    ).toThrow(/duplicate route GET/);
  });
});

describe("deep wildcards and long paths", () => {
  const base = readRoutes("v1.0.1").routes[0]!;
  const route = (
    operation: string,
    method: string,
    template: string,
    segments: string[],
    variables: { field: string; start: number; end: number }[],
    verb: string | null = null,
  ) => ({
    ...base,
    operation,
    method,
    template,
    segments,
    verb,
    variables: variables.map((v) => ({ ...v, jsonName: v.field })),
  });
  const files = route(
    "GetFile",
    "GET",
    "/v1/{name=files/**}",
    ["v1", "files", "**"],
    [{ field: "name", start: 1, end: 3 }],
  );
  const exact = route("GetIndex", "GET", "/v1/files/index", ["v1", "files", "index"], []);
  const verbRoute = route(
    "Watch",
    "POST",
    "/v1/{path=**}:watch",
    ["v1", "**"],
    [{ field: "path", start: 1, end: 2 }],
    "watch",
  );
  const long = route(
    "Long",
    "GET",
    "/" + Array.from({ length: 80 }, (_, i) => `{v${i}}`).join("/"),
    Array(80).fill("*"),
    Array.from({ length: 80 }, (_, i) => ({ field: `v${i}`, start: i, end: i + 1 })),
  );
  const m = compilePathMatcher([files, exact, verbRoute, long]);

  it("prefers literals over **, and binds the rest to the variable", () => {
    expect(m.match("GET", "/v1/files/index")).toMatchObject({ status: 200, route: { operation: "GetIndex" } });
    expect(m.match("GET", "/v1/files/a/b/c")).toMatchObject({ status: 200, params: { name: "files/a/b/c" } });
    expect(m.match("GET", "/v1/files/a%2Fb/c%20d")).toMatchObject({ status: 200, params: { name: "files/a%2Fb/c d" } });
    expect(m.match("POST", "/v1/x/y:watch")).toMatchObject({ status: 200, params: { path: "x/y" } });
    expect(m.match("GET", "/v1/x/y:watch")).toEqual({ status: 405, allow: ["POST"] });
  });

  it("expand → match round-trips ** values", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc
            .string({ unit: "grapheme", minLength: 1, maxLength: 6 })
            .filter((s) => !s.includes("/") && !DOTS.includes(s)),
          { minLength: 1, maxLength: 5 },
        ),
        (parts) => {
          const name = "files/" + parts.join("/");
          const r = m.match("GET", expandPath(files, { name }));
          expect(r.status === 200 && r.params["name"]).toBe(name);
        },
      ),
    );
  });

  it("handles paths deeper than its scratch buffer", () => {
    const values = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`v${i}`, `s${i}`]));
    const r = m.match("GET", expandPath(long, values));
    expect(r).toMatchObject({ status: 200, params: values });
  });
});

describe("dot segments", () => {
  it("refuses . and .. as a path value, naming the field, where a URL would drop or climb a segment", () => {
    const getTask = v1.routes.find((r) => r.operation === "GetTask" && !r.tenantVariant)!;
    const tenantGet = v1.routes.find((r) => r.operation === "GetTask" && r.tenantVariant)!;
    const get03 = v03.routes.find((r) => r.operation === "GetTaskPushNotificationConfig")!;
    for (const dots of DOTS) {
      expect(() => expandPath(getTask, { id: dots })).toThrow(`"id" = "${dots}" cannot be sent in`);
      expect(() => expandPath(tenantGet, { tenant: dots, id: "t" })).toThrow(`"tenant" = "${dots}" cannot be sent`);
      const name = `tasks/${dots}/pushNotificationConfigs/c`;
      expect(() => expandPath(get03, { name })).toThrow(`"name" = "${dots}" cannot be sent`);
    }
    expect(expandPath(getTask, { id: "..." })).toBe("/tasks/...");
  });
});
