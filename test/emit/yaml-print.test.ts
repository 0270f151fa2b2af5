/**
 * The YAML printer of the OpenAPI documents (src/emit/print/yaml-print.ts), read back by an independent reader, the
 * `yaml` package: every JSON value reads back as itself, strings that look like other YAML types stay strings,
 * multi-line text prints as literal blocks, and the committed documents print the same bytes again.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { printYaml } from "../../src/emit/print/yaml-print.js";
import type { Tree } from "../../src/emit/print/doc-tree.js";
import { repoRoot } from "../helpers/run.js";

/** What the tree means as JSON (-0 is 0 there). */
const asJson = (t: Tree) => JSON.parse(JSON.stringify(t));
const readBack = (t: Tree): void => {
  expect(parse(printYaml(t))).toEqual(asJson(t));
};

describe("printYaml", () => {
  it("reads back as the same JSON value, for any value", () => {
    fc.assert(fc.property(fc.jsonValue() as fc.Arbitrary<Tree>, readBack), { numRuns: 3000 });
    const text = fc.string({ unit: "binary", maxLength: 12 });
    const tree = fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 })), { maxKeys: 4 });
    fc.assert(fc.property(tree as fc.Arbitrary<Tree>, readBack), { numRuns: 3000 });
  });

  it("keeps strings that other YAML types spell as strings", () => {
    const tricky = ["true", "No", "y", "null", "~", "", " x", "x ", "1", "0x1F", ".5", ".inf", "-", "- a", "a: b"];
    const more = ["a #b", "#c", "[1]", "{a}", "*x", "&y", "!t", "%d", "@e", "`f", "|", ">", "'q'", '"q"', "a:", "?"];
    const edge = ["2024-01-01", "1e3", "+1", "=", "\u0085", "\u2028", "\ufeff", "tab\there", "cr\r\n", "\u0000"];
    for (const s of [...tricky, ...more, ...edge]) {
      readBack(s);
      readBack({ [s]: s });
      readBack([s, { k: [s] }]);
    }
  });

  it("reads back every character of the Basic Multilingual Plane, alone, as a key and in multi-line text", () => {
    const chars = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).filter(
      (ch) => ch < "\ud800" || ch > "\udfff",
    );
    const tree = {
      alone: chars,
      // Maps of 256 keys: the reader checks each new key against the map's others.
      keys: Array.from({ length: Math.ceil(chars.length / 256) }, (_, i) =>
        Object.fromEntries(chars.slice(i * 256, (i + 1) * 256).map((ch) => [`k${ch}`, 1])),
      ),
      lines: chars.map((ch) => `line\n${ch}\nline\n`),
    };
    readBack(tree);
    // The text itself holds only what YAML prints as it is (c-printable, and no CR), without C1 controls,
    // line separators or a byte order mark, which YAML 1.1 readers take for breaks or drop: those are escaped.
    const printed = printYaml(tree);
    const held = (c: number) =>
      c === 0x09 ||
      c === 0x0a ||
      (c >= 0x20 && c <= 0x7e) ||
      (c >= 0xa0 && c <= 0xfffd && c !== 0x2028 && c !== 0x2029 && c !== 0xfeff);
    const bad = [...printed].filter((ch) => ch.length === 1 && !held(ch.charCodeAt(0)));
    expect(bad.map((ch) => ch.charCodeAt(0).toString(16))).toEqual([]);
  });

  it("prints multi-line text as literal blocks, with each chomping", () => {
    const doc = { a: "one\ntwo", b: "one\ntwo\n", c: "one\n\ntwo\n\n\n", d: ["x\n  indented\ny"] };
    const out = printYaml(doc);
    expect(out).toBe(
      [
        "a: |-",
        "  one",
        "  two",
        "b: |",
        "  one",
        "  two",
        "c: |+",
        "  one",
        "",
        "  two",
        "",
        "",
        "d:",
        "  - |-",
        "    x",
        "      indented",
        "    y",
        "",
      ].join("\n"),
    );
    expect(parse(out)).toEqual(doc);
    // Text a block cannot hold exactly is quoted: an opening space, trailing spaces, a CR.
    for (const s of [" lead\nx", "trail \nx", "a\r\nb"]) expect(printYaml({ s })).toBe(`s: ${JSON.stringify(s)}\n`);
  });

  it("prints the committed OpenAPI documents as they are", () => {
    for (const v of ["v0.3.0", "v1.0.1"]) {
      const text = readFileSync(join(repoRoot, `generated-samples/${v}/a2a_openapi.yaml`), "utf8");
      expect(printYaml(parse(text) as Tree)).toBe(text);
    }
  });
});
