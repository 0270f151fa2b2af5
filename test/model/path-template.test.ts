import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  parsePathTemplate,
  printPathTemplate,
  TemplateSyntaxError,
  type PathTemplate,
} from "../../src/model/path-template.js";

const literal = fc.stringMatching(/^[A-Za-z0-9\-._~!$&'()+,;@]{1,8}$/);
const ident = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/);
const leaf = fc.oneof(literal, fc.constant("*"));

/** Random templates in the http.proto grammar ("**" only last). */
const template = fc
  .tuple(
    fc.array(
      fc.oneof(
        leaf,
        fc
          .tuple(
            fc.array(ident, { minLength: 1, maxLength: 2 }),
            fc.option(fc.array(leaf, { minLength: 1, maxLength: 3 }), { nil: undefined }),
          )
          .map(([path, pattern]) => `{${path.join(".")}${pattern ? "=" + pattern.join("/") : ""}}`),
      ),
      { minLength: 1, maxLength: 5 },
    ),
    fc.boolean(),
    fc.option(literal, { nil: undefined }),
  )
  .map(([segs, deep, verb]) => "/" + [...segs, ...(deep ? ["**"] : [])].join("/") + (verb ? ":" + verb : ""));

describe("path template grammar", () => {
  it("print(parse(t)) is the identity", () => {
    fc.assert(
      fc.property(template, (t) => {
        expect(printPathTemplate(parsePathTemplate(t))).toBe(t);
      }),
      { numRuns: 2000 },
    );
  });

  it("parses variables, patterns and verbs", () => {
    const t: PathTemplate = parsePathTemplate("/v1/{parent=task/*/pushNotificationConfigs}:go");
    expect(t.verb).toBe("go");
    expect(t.segments).toEqual([
      { kind: "literal", value: "v1" },
      {
        kind: "variable",
        fieldPath: ["parent"],
        explicit: true,
        segments: [
          { kind: "literal", value: "task" },
          { kind: "wildcard" },
          { kind: "literal", value: "pushNotificationConfigs" },
        ],
      },
    ]);
    expect(parsePathTemplate("/a/{b.c}").segments[1]).toEqual({
      kind: "variable",
      fieldPath: ["b", "c"],
      explicit: false,
      segments: [{ kind: "wildcard" }],
    });
  });

  it.each([
    ["tasks/{id}", 1, 'must start with "/"'],
    ["/tasks/{id", 8, "unbalanced"],
    ["/tasks/id}", 10, 'unbalanced "}"'],
    ["/a/**/b", 4, '"**" must be the last segment'],
    ["/a/{x=**}/b", 4, '"**" must be the last segment'],
    ["/a/{x={y}}", 7, "variables cannot nest"],
    ["/a/%zz", 4, "%XX"],
    ["/a//b", 4, "expected a literal"],
    ["/a/{1x}", 5, "expected a field name"],
    ["/a:", 4, "expected a verb"],
  ])("rejects %s at column %i", (text, column, reason) => {
    let err: unknown;
    try {
      parsePathTemplate(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemplateSyntaxError);
    expect((err as TemplateSyntaxError).column).toBe(column);
    expect((err as TemplateSyntaxError).message).toContain(reason);
  });
});
