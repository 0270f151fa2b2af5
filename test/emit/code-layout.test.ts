import { createImportSymbol } from "@bufbuild/protoplugin";
import { describe, expect, it } from "vitest";
import {
  cases,
  chained,
  guarded,
  ifBlock,
  listed,
  packed,
  params,
  prose,
  switchCase,
  widthOf,
  type Code,
} from "../../src/emit/print/code-layout.js";

/** Code as text, an import by its name (as protoplugin prints it when no name clashes). */
const text = (c: Code): string =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c.map(text).join("")
      : typeof c === "object" && "kind" in c && c.kind === "es_symbol"
        ? c.name
        : String(c);

const lines = (cs: readonly Code[]) => cs.map(text);

describe("code layout", () => {
  it("measures code as it prints: text, and an import by its name", () => {
    const sym = createImportSymbol("lose", "@protoc-gen-a2a/runtime/compat-json");
    expect(widthOf(["if (x) ", sym, "(lost);"])).toBe("if (x) lose(lost);".length);
    expect(widthOf(text(["a", ["b", ["c"]]]))).toBe(3);
  });

  it("keeps an if on one line up to the width, and puts its statement on a line of its own past it", () => {
    const stmt = "m.x = y;";
    const cond = "c".repeat(114 - "if () ".length - stmt.length);
    expect(lines(guarded(cond, stmt))).toEqual([`if (${cond}) ${stmt}`]);
    expect(lines(guarded(`${cond}c`, stmt))).toEqual([`if (${cond}c)`, `  ${stmt}`]);
  });

  it("writes two statements under an if as a block when they do not fit on one line", () => {
    expect(lines(ifBlock("v", ["const w = 1;", "m.w = w;"]))).toEqual(["if (v) { const w = 1; m.w = w; }"]);
    const long = `const w = ${"x".repeat(100)};`;
    expect(lines(ifBlock("v", [long, "m.w = w;"]))).toEqual(["if (v) {", `  ${long}`, "  m.w = w;", "}"]);
  });

  it("writes a switch case on one line when it fits, else a statement a line under its label", () => {
    expect(lines(switchCase('case "a":', ["f();", "break;"]))).toEqual(['  case "a": f(); break;']);
    const call = `g(${"y".repeat(100)});`;
    expect(lines(switchCase('case "a":', [call, "break;"]))).toEqual(['  case "a":', `    ${call}`, "    break;"]);
  });

  it("prints a list on one line when it fits, else an item a line with trailing commas", () => {
    expect(listed("const t = {", ["a: 1", "b: 2"], "};")).toEqual(["const t = { a: 1, b: 2 };"]);
    expect(listed("new Map([", ["[1, 2]", "[3, 4]"], "])")).toEqual(["new Map([[1, 2], [3, 4]])"]);
    expect(listed("const t = {", [], "};")).toEqual(["const t = {};"]);
    expect(listed("const t = {", ["a: 1", "b: 2"], "};", 20)).toEqual(["const t = {", "  a: 1,", "  b: 2,", "};"]);
    // A nested list of several lines is indented as a whole.
    expect(listed("[", ["x", "[\n  y,\n]"], "]")).toEqual(["[", "  x,", "  [", "    y,", "  ],", "]"]);
  });

  it("chains operands on one line when they fit, else an operand a line", () => {
    expect(chained(["a", "b", "c"], "||", 20)).toEqual(["a || b || c"]);
    expect(chained(["a", "b", "c"], "&&", 8)).toEqual(["a &&", "b &&", "c"]);
  });

  it("puts case labels one a line, the statement one level deeper", () => {
    expect(lines(cases(['case "a":', 'case "b":'], "break;"))).toEqual(['case "a":', 'case "b":', "  break;"]);
  });

  it("packs items onto lines of at most the width, a longer item alone", () => {
    expect(packed(["aa", "bb", "cc"], 5)).toEqual(["aa bb", "cc"]);
    expect(packed(["aaaaaaa", "b"], 5)).toEqual(["aaaaaaa", "b"]);
    expect(packed([], 5)).toEqual([]);
  });

  it("wraps prose at the width and keeps its own line breaks", () => {
    expect(prose("one two three\nfour", 7)).toBe("one two\nthree\nfour");
  });

  it("puts a signature's parameters one a line only when the signature is too long", () => {
    expect(text(params("function f", ["a: A", "b: B"], "R", " {"))).toBe("function f(a: A, b: B): R {");
    const t = "T".repeat(60);
    expect(text(params("function f", [`a: ${t}`, `b: ${t}`], "R", ";"))).toBe(
      `function f(\n  a: ${t},\n  b: ${t},\n): R;`,
    );
  });
});
