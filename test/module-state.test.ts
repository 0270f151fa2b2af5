/**
 * No module-level mutable state in the generator (src/): what one run works out is passed to the next
 * stage as a value, never left in a module for a later phase or run to find. A module may hold constants
 * (tables, patterns, collections it never changes); it fails this test when it declares a top-level `let`
 * or `var`, or a top-level collection (Map, Set, WeakMap, WeakSet, array) that the module then changes
 * (set, add, delete, clear, push, splice, pop, shift, unshift). Caches that live as long as one run are
 * made inside a function (commentReader, docRenderer, shapeImports); loading an asset once is Node's module
 * cache's job.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Each piece of module-level mutable state in `source`, as `name (why)`. */
function moduleState(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^(?:export )?(let|var) +([\w$]+)/gm)) found.push(`${m[2]} (top-level ${m[1]})`);
  const collection = /^(?:export )?const +([\w$]+)(?:: [^=\n]+)? = (?:new (?:Map|Set|WeakMap|WeakSet)\b|\[)/gm;
  for (const m of source.matchAll(collection)) {
    const name = m[1]!.replace(/\$/g, "\\$");
    const change = new RegExp(`\\b${name}\\.(set|add|delete|clear|push|splice|pop|shift|unshift)\\(`);
    const hit = change.exec(source);
    if (hit) found.push(`${m[1]} (changed by ${hit[1]})`);
  }
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

describe("module-level state", () => {
  it("finds a top-level let, and a top-level collection the module changes", () => {
    expect(moduleState("let cache: string | undefined;\nexport function f() {}\n")).toEqual(["cache (top-level let)"]);
    expect(
      moduleState("const seen = new Map<string, number>();\nexport const f = (k: string) => seen.set(k, 1);\n"),
    ).toEqual(["seen (changed by set)"]);
    expect(moduleState("export const list: string[] = [];\nexport const add = (x: string) => list.push(x);\n")).toEqual(
      ["list (changed by push)"],
    );
    // A constant table, and state inside a function, are fine.
    expect(
      moduleState('const KINDS = new Set(["a", "b"]);\nexport const has = (k: string) => KINDS.has(k);\n'),
    ).toEqual([]);
    expect(moduleState("export function f() {\n  let n = 0;\n  const m = new Map();\n  m.set(1, n++);\n}\n")).toEqual(
      [],
    );
  });

  it("has none in the generator", () => {
    const found = sources(join(root, "src")).flatMap((file) =>
      moduleState(readFileSync(file, "utf8")).map((s) => `${relative(root, file)}: ${s}`),
    );
    expect(found).toEqual([]);
  });
});
