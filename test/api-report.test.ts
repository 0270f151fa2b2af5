/**
 * The API reports (api/*.api.md, written by scripts/api-report.js) match the code, so every change to the public
 * API of the packages and of the generated modules shows in review; and the report itself shows what it should.
 */
import { describe, expect, it } from "vitest";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildReports, compareReports, reportSpecs, writeReports } from "../scripts/api-report/report.js";
import { repoRoot, tempDir } from "./helpers/run.js";

describe("API report", () => {
  it("api/ matches the code (else: npm run api-report, and commit api/)", () => {
    const differences = compareReports(repoRoot, buildReports(repoRoot));
    expect(differences.map((d) => d.message).join("\n\n"), "run `npm run api-report` and commit api/").toBe("");
  });

  it("reports both packages' entry points and every generated module but protoc-gen-es output", () => {
    const specs = reportSpecs(repoRoot);
    expect(specs.map((s) => s.file)).toEqual([
      "api/runtime.api.md",
      "api/protoc-gen-a2a.api.md",
      "api/generated-samples.api.md",
    ]);
    expect(specs[0]?.modules[0]).toEqual({ heading: "@protoc-gen-a2a/runtime", path: "packages/runtime/src/index.ts" });
    expect(specs[0]?.modules).toContainEqual({
      heading: "@protoc-gen-a2a/runtime/compat-json",
      path: "packages/runtime/src/compat/compat-json.ts",
    });
    expect(specs[1]?.modules).toEqual([{ heading: "protoc-gen-a2a", path: "src/plugin.ts" }]);
    const samples = specs[2]?.modules.map((m) => m.path) ?? [];
    expect(samples).toContain("generated-samples/a2a_compat.ts");
    expect(samples).toContain("generated-samples/v1.0.1/a2a_routes.ts");
    expect(samples.filter((p) => p.endsWith("_pb.ts") || p.includes("/google/"))).toEqual([]);
  });

  // 61 since guardGrpcListener: every node:http2 gRPC server needs it (connect-node's listener can end the process).
  it("the runtime's main entry holds what users write against, at most 61 names; /protocol the rest", () => {
    const report = buildReports(repoRoot).get("api/runtime.api.md") ?? "";
    const countOf = (heading: string) => {
      const at = report.indexOf(`## \`${heading}\``);
      return Number(/\n\n(\d+) exports?[;.]/.exec(report.slice(at))?.[1]);
    };
    expect(countOf("@protoc-gen-a2a/runtime")).toBeLessThanOrEqual(61);
    expect(countOf("@protoc-gen-a2a/runtime/protocol")).toBeGreaterThan(0);
    expect(reportSpecs(repoRoot)[0]?.modules[1]).toEqual({
      heading: "@protoc-gen-a2a/runtime/protocol",
      path: "packages/runtime/src/protocol.ts",
    });
  });

  it("shows each export's kind and signature, sorted, and the local types they name", () => {
    const root = demoProject();
    const report = buildReports(root, [demoSpec]).get("api/demo.api.md");
    expect(report).toContain("## `demo` (`lib.ts`)\n\n12 exports; 2 declarations named by them, not exported.\n");
    expect(report?.slice(report.indexOf("```ts"))).toBe(demoReport);
    expect(report).not.toContain(root);
  });

  it("a difference names the file and its first differing lines; writing brings the files in line", () => {
    const root = demoProject();
    const reports = buildReports(root, [demoSpec]);
    expect(compareReports(root, reports).map((d) => d.message)).toEqual(["api/demo.api.md is missing"]);
    expect(writeReports(root, reports)).toEqual(["api/demo.api.md"]);
    expect(compareReports(root, reports)).toEqual([]);

    const lib = join(root, "lib.ts");
    writeFileSync(lib, readFileSync(lib, "utf8").replace("size?: number", "size: number"));
    writeFileSync(join(root, "api/old.api.md"), "");
    const changed = buildReports(root, [demoSpec]);
    const messages = compareReports(root, changed).map((d) => d.message);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^api\/demo\.api\.md differs from the code \(\+1 -1 lines\); first difference at line/);
    expect(messages[0]).toContain("\n  -   size?: number;\n");
    expect(messages[0]).toContain("\n  +   size: number;\n");
    expect(messages[1]).toBe("api/old.api.md is written by no report");
    expect(writeReports(root, changed).sort()).toEqual(["api/demo.api.md", "api/old.api.md"]);
    expect(readdirSync(join(root, "api"))).toEqual(["demo.api.md"]);
    expect(compareReports(root, changed)).toEqual([]);
  });

  it("the plugin never loads the report's tools (ts-morph, TypeScript, scripts/)", () => {
    const offenders = sourceFiles(join(repoRoot, "src")).filter((file) =>
      /from\s+["'](ts-morph|typescript|[./]*\/scripts\/[^"']*)["']|import\(\s*["'](ts-morph|typescript)["']/.test(
        readFileSync(file, "utf8"),
      ),
    );
    expect(offenders).toEqual([]);
  });
});

const demoSpec = { file: "api/demo.api.md", title: "demo", modules: [{ heading: "demo", path: "lib.ts" }] };

/** A tiny project: one module with an export of each kind, and one it re-exports from. */
function demoProject(): string {
  const root = tempDir("api-report");
  mkdirSync(join(root, "api"));
  writeFileSync(
    join(root, "util.ts"),
    ["export interface Options {", "  x?: boolean;", "}", "export const helper = <T>(x: T): T => x;", ""].join("\n"),
  );
  writeFileSync(
    join(root, "lib.ts"),
    [
      'import { helper } from "./util.js";',
      "/** Picks. */",
      "export function pick(a: string): string;",
      "export function pick(a: number): number;",
      "export function pick(a: string | number): string | number {",
      "  return helper(a);",
      "}",
      "export interface Shape {",
      '  readonly kind: "a" | "b"; // the kind',
      "  /** Its size. */",
      "  size?: number;",
      "}",
      "export type Id = string;",
      "export const table = [{ a: 1 }, { a: 2 }] as const satisfies readonly { a: number }[];",
      "export const limit = 3;",
      'export let mutable = "x";',
      'export enum Color { Red = "red" }',
      "class Base {",
      "  base(): Hidden { return { x: 1 }; }",
      "}",
      "interface Hidden { x: number }",
      "export class Box extends Base {",
      "  private secret = 1;",
      "  #hidden = 2;",
      '  readonly label = "box";',
      '  constructor(readonly size: number, note = "n") { super(); void note; }',
      "  area(): number { return this.size * this.secret * this.#hidden; }",
      "}",
      'export * as util from "./util.js";',
      'export type { Options, helper as helperType } from "./util.js";',
      "export default function make(size: number): Box { return new Box(size); }",
      "",
    ].join("\n"),
  );
  return root;
}

const demoReport = `\`\`\`ts
export declare class Box extends Base {
  readonly label: "box";
  readonly size: number;
  constructor(size: number, note?: string);
  area(): number;
}

export declare enum Color {
  Red = "red",
}

declare function make(size: number): Box;
export default make;

// type-only export
export declare const helperType: <T>(x: T) => T;

export type Id = string;

export declare const limit: 3;

export declare let mutable: string;

export interface Options {
  x?: boolean;
}

export declare function pick(a: string): string;
export declare function pick(a: number): number;

export interface Shape {
  readonly kind: "a" | "b";
  size?: number;
}

export const table = [/* 2 elements */] as const satisfies readonly { a: number }[];

export * as util from "./util.js";

// not exported: lib.ts
declare class Base {
  base(): Hidden;
}

// not exported: lib.ts
interface Hidden {
  x: number;
}
\`\`\`
`;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith(".ts") ? [path] : [];
  });
}
