/**
 * Transport-only users never load the task runtime: the runtime's main entry (src/index.ts) reaches, through
 * its runtime imports (type-only ones erased), no module of task/ nor any card/ module the card-signing entry
 * loads (the core modules both share, a bounded body read among them, are the transport's own), and none of the
 * packages only those need (pg, jose, canonicalize). The graph is read from the sources' import and
 * export-from specifiers, as import-cycles.test.ts reads it.
 */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../../packages/runtime/src");

/** The modules a source loads at run time, as written: `import type` and `export type` are left out. */
function runtimeSpecifiers(text: string): string[] {
  const re =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?[^;]*?\bfrom\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']/g;
  const out: string[] = [];
  for (const m of text.matchAll(re)) {
    if (m[4]) out.push(m[4]);
    else if (!m[2]) out.push(m[3]!);
  }
  return out;
}

/** Every relative module and every package reached from `entry`, at run time. */
function reach(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    for (const s of runtimeSpecifiers(readFileSync(file, "utf8"))) {
      if (s.startsWith(".")) visit(resolve(dirname(file), s.replace(/\.js$/, ".ts")));
      else packages.add(s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]!);
    }
  };
  visit(entry);
  return { modules, packages };
}

describe("runtime entry points", () => {
  it("the main entry loads nothing of the task runtime or card signing", () => {
    const { modules, packages } = reach(resolve(src, "index.ts"));
    const loaded = [...modules].map((m) => relative(src, m));
    expect(loaded.length).toBeGreaterThan(10);
    const signing = new Set(
      [...reach(resolve(src, "card/index.ts")).modules]
        .map((m) => relative(src, m))
        .filter((m) => m.startsWith("card/")),
    );
    expect(signing.size).toBeGreaterThan(3);
    expect(loaded.filter((m) => m.startsWith("task/") || signing.has(m))).toEqual([]);
    expect([...packages].filter((p) => ["pg", "jose", "canonicalize"].includes(p))).toEqual([]);
  });

  it("the task entry does not load pg (only the postgres entry does)", () => {
    const { modules, packages } = reach(resolve(src, "task/index.ts"));
    expect([...modules].map((m) => relative(src, m)).filter((m) => m.startsWith("task/postgres/"))).toEqual([]);
    expect(packages.has("pg")).toBe(false);
  });
});
