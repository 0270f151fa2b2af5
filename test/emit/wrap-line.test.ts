/**
 * The layout of long generated lines (src/emit/print/wrap-line.ts): each way a line is broken, the result
 * still parsed as the same JavaScript (node:vm compiles it; tokens equal but for whitespace and trailing
 * commas); the layout of long import lines (src/emit/print/import-layout.ts); and the generated modules of
 * this repository held to both: no line of a module protoc-gen-a2a writes is over 120 characters, and no
 * `X$1` alias renames a clashing import.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import type { ImportSymbol } from "@bufbuild/protoplugin";
import { layOutImports } from "../../src/emit/print/import-layout.js";
import { wrapLine } from "../../src/emit/print/wrap-line.js";
import { repoRoot } from "../helpers/run.js";

const printed = (lines: unknown[][]) =>
  lines.map((l) => l.map((p) => (typeof p === "string" ? p : (p as ImportSymbol).name)).join("")).join("\n");

/** The code without whitespace and trailing commas: what must not change. */
const tokensOf = (code: string) =>
  code
    .replace(/,(\s*[)\]}])/g, "$1")
    .replace(/"\s*\+\s*"/g, "")
    .replace(/\s+/g, "");

function wrapped(code: string, width = 60): string {
  const out = printed(wrapLine([code], width));
  expect(() => new Script(out), out).not.toThrow();
  expect(tokensOf(out)).toBe(tokensOf(code));
  for (const line of out.split("\n")) expect(line.length, line).toBeLessThanOrEqual(width);
  return out;
}

describe("wrapLine", () => {
  it("leaves a line that fits as it is", () => {
    expect(printed(wrapLine(["  const a = 1;"], 60))).toBe("  const a = 1;");
  });

  it("puts the statement of a long if one level deeper", () => {
    expect(wrapped('  if (value !== undefined) report(lost, at, "the field", value);')).toBe(
      '  if (value !== undefined)\n    report(lost, at, "the field", value);',
    );
  });

  it("breaks a conditional before ? and :", () => {
    expect(wrapped("  const file = kind === 'raw' ? { bytes: value.raw } : { uri: value.url };")).toBe(
      "  const file = kind === 'raw'\n    ? { bytes: value.raw }\n    : { uri: value.url };",
    );
  });

  it("puts a call's arguments one per line, with a trailing comma", () => {
    expect(wrapped("  out.items = eachOf(json.items, at(path, 'items'), lost, encodeItem);", 50)).toBe(
      "  out.items = eachOf(\n    json.items,\n    at(path, 'items'),\n    lost,\n    encodeItem,\n  );",
    );
  });

  it("puts an object's members one per line, and opens a call of one object at the object", () => {
    expect(wrapped("  list.push({ name: item.name, url: item.url, kind: 'link' });", 40)).toBe(
      "  list.push({\n    name: item.name,\n    url: item.url,\n    kind: 'link',\n  });",
    );
  });

  it("adds no trailing comma inside the parentheses of an if or a grouping", () => {
    const out = wrapped("  const total = (first.count + second.count + third.count + fourth.count) * 2;", 70);
    expect(out).not.toMatch(/,\n\s*\)/);
  });

  it("splits a string too long for any line into two joined by +", () => {
    const out = wrapped('  lose(lost, a, "one two three four five six seven eight nine ten eleven");', 40);
    expect(out).toContain('" +\n');
  });

  it("keeps strings, templates and regular expressions whole", () => {
    const out = wrapped("  const m = /^(a|b), (c)$/.exec(`x, y`) ?? fallback(\"p, q\", 'r, s', `t, u`);", 40);
    expect(out).toContain("/^(a|b), (c)$/");
    expect(out).toContain("`t, u`");
    // A template with code inside is not read: its line is left as it is.
    const template = ["  const m = fallback(`x, $", "{y}`, 'a long enough argument', 'and another one');"].join("");
    expect(printed(wrapLine([template], 40))).toBe(template);
  });

  it("counts an import symbol as its name", () => {
    const symbol = { kind: "es_symbol", name: "lose", from: "x", typeOnly: false, id: "1" } as unknown as ImportSymbol;
    const lines = wrapLine(["    ", symbol, '(lost, a, "first key", "a reason that is long enough to wrap");'], 50);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[0]).toContain(symbol);
  });
});

describe("layOutImports", () => {
  const block = (...lines: string[]) => lines.join("\n");
  const long = 'import type { Alpha, Beta, Gamma } from "@scope/package/entry";';
  const code = 'export const x: Alpha = 1;\nimport { a, b, c, d, e, f } from "not/the/block";';

  it("puts the names of an import line wider than the limit one per line", () => {
    const out = layOutImports(block("// @generated", "", long, 'import { a } from "./a.js";', "", code), 40);
    expect(out).toBe(
      block(
        "// @generated",
        "",
        "import type {",
        "  Alpha,",
        "  Beta,",
        "  Gamma,",
        '} from "@scope/package/entry";',
        'import { a } from "./a.js";',
        "",
        code,
      ),
    );
    for (const line of out.split("\n").slice(0, 8)) expect(line.length, line).toBeLessThanOrEqual(40);
  });

  it("leaves lines that fit, other import forms and everything after the block as they are", () => {
    const others = block('import * as everything from "@scope/package/entry/and/more";', code);
    expect(layOutImports(others, 40)).toBe(others);
    expect(layOutImports(block(long, code), 200)).toBe(block(long, code));
  });
});

describe("the generated modules", () => {
  const ours = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return ours(path);
      // *_pb.ts is protoc-gen-es's.
      return e.name.endsWith(".ts") && !e.name.endsWith("_pb.ts") ? [path] : [];
    });
  const files = ours(join(repoRoot, "generated-samples"));

  it("have no line over 120 characters and no $1 alias", () => {
    expect(files.length).toBeGreaterThan(10);
    const found = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => {
          const at = `${relative(repoRoot, file)}:${i + 1}`;
          if (/\w\$1\b/.test(line)) return [`${at}: a $1 alias`];
          if (line.length > 120) return [`${at}: ${line.length} columns`];
          return [];
        }),
    );
    expect(found).toEqual([]);
  });
});
