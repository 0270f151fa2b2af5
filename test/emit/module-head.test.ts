import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every module protoc-gen-a2a writes opens as hand-written code does: the preamble, then the module's own
 * comment, then its imports. generated-samples/ is what the generator writes now (generate.test.ts checks it);
 * the *_pb.ts modules are protoc-gen-es's.
 */
const root = join(import.meta.dirname, "..", "..", "generated-samples");

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return modules(path);
    return e.name.endsWith(".ts") && !e.name.endsWith("_pb.ts") ? [path] : [];
  });
}

describe("the head of a generated module", () => {
  const files = modules(root);

  it("finds the modules", () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((f) => [relative(root, f), f]))("%s: its own comment comes before its imports", (_, path) => {
    const lines = readFileSync(path, "utf8").split("\n");
    const afterPreamble = lines.indexOf("/* eslint-disable */") + 1;
    expect(afterPreamble).toBeGreaterThan(0);
    expect(lines[afterPreamble]).toBe("");
    expect(lines[afterPreamble + 1]).toMatch(/^\/\/ \S/);
    const firstImport = lines.findIndex((l) => l.startsWith("import "));
    const commentEnd = lines.findIndex((l, i) => i > afterPreamble && !l.startsWith("// "));
    expect(lines[commentEnd]).toBe("");
    if (firstImport >= 0) expect(firstImport).toBeGreaterThan(commentEnd);
  });
});
