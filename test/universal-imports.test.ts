/**
 * What Bun, Deno, Cloudflare Workers and browsers load must not need Node: every module reachable by static
 * imports from the runtime's universal entries (its built JavaScript, where type-only imports are gone) and
 * every generated module but the message types imports no Node built-in (`node:*` or a bare built-in name)
 * and no Node-only package, and names neither `Buffer` nor `process` (`globalThis.process` is a feature test,
 * allowed). Dynamic `import()` is how a module reaches Node-only code on demand (after asking whether the
 * runtime has it: core/node-builtins.ts), so it is not followed. The node:http adapter (http/node-listener.ts)
 * may name Node's globals, which bundles for Workers and browsers that do not call it never reach, but imports
 * no Node built-in, which a bundler must resolve all the same. Not checked: the PostgreSQL store (`/postgres`,
 * not a universal entry).
 */
import { builtinModules } from "node:module";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/run.js";

const dist = join(repoRoot, "packages/runtime/dist");
const universalEntries = [
  "index.js",
  "protocol.js",
  "compat/compat-json.js",
  "task/index.js",
  "auth/index.js",
  "card/index.js",
  "otel/index.js",
];
const nodeOnlyPackages = ["undici", "pg", "@connectrpc/connect-node", "ws"];
/** Node's own modules on those paths. */
const nodeAdapters = new Set(["http/node-listener.js"]);
const builtins = new Set(builtinModules);

/** The static import and export-from specifiers of a built module (no dynamic import()). */
function staticSpecifiers(code: string): string[] {
  const from = /(?:^|\n)\s*(?:import|export)\s+(?:[^;"'()]*?\bfrom\s*)?["']([^"']+)["']/g;
  return [...code.matchAll(from)].map((m) => m[1]!);
}

/** The code of a module without its comments and string literals, to look for globals. */
function codeOnly(code: string): string {
  return code.replace(
    /\/\*[\s\S]*?\*\/|\/\/[^\n]*|`(?:\\[\s\S]|[^`\\])*`|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g,
    '""',
  );
}

/** What in a module needs Node: its Node imports and the Node globals it names. */
function nodeNeeds(code: string): string[] {
  const imports = staticSpecifiers(code).filter((s) => {
    const pkg = s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]!;
    return s.startsWith("node:") || builtins.has(pkg) || nodeOnlyPackages.includes(pkg);
  });
  const globals = [...codeOnly(code).matchAll(/(?<![.\w$])(Buffer|process)\b/g)].map((m) => m[1]!);
  return [...imports.map((s) => `imports ${s}`), ...[...new Set(globals)].map((g) => `uses ${g}`)];
}

/** Every module of the runtime reachable from `entry` by relative static imports. */
function reachable(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const s of staticSpecifiers(readFileSync(file, "utf8")))
      if (s.startsWith(".")) visit(resolve(dirname(file), s));
  };
  visit(join(dist, entry));
  return [...seen];
}

describe("the check", () => {
  it("finds Node imports and globals, and lets a feature test, type names and prose through", () => {
    const code = [
      'import { request } from "node:http";',
      'import { x } from "crypto";',
      'export { y } from "undici";',
      'import "./side.js";',
      "const b = Buffer.from('x');",
      "if (globalThis.process?.versions) {}",
      "// process.exit() in a comment",
      'const s = "Buffer in a string";',
      'const later = () => import("node:tls");',
    ].join("\n");
    expect(nodeNeeds(code)).toEqual(["imports node:http", "imports crypto", "imports undici", "uses Buffer"]);
    expect(nodeNeeds('import { create } from "@bufbuild/protobuf";\nconst p = globalThis.process;')).toEqual([]);
  });
});

describe("modules the universal paths load need no Node", () => {
  it.each(universalEntries)("runtime entry %s", (entry) => {
    const modules = reachable(entry).filter((file) => !nodeAdapters.has(relative(dist, file)));
    const needs = modules.flatMap((file) =>
      nodeNeeds(readFileSync(file, "utf8")).map((n) => `${relative(dist, file)} ${n}`),
    );
    expect(needs).toEqual([]);
  });

  it("the node:http adapter, which index.js imports, imports no Node built-in (it names Node's globals)", () => {
    // A bundle for a browser or a Worker must resolve every static import of the entry, called or not; the
    // adapter's Buffer, process and setImmediate are looked up only when it runs (on Node, Bun or Deno).
    for (const adapter of nodeAdapters) {
      const needs = nodeNeeds(readFileSync(join(dist, adapter), "utf8"));
      expect(
        needs.filter((n) => n.startsWith("imports ")),
        adapter,
      ).toEqual([]);
    }
    expect(reachable("index.js").map((file) => relative(dist, file))).toContain("http/node-listener.js");
  });

  it("every generated module but the message types (generated-samples)", () => {
    const dir = join(repoRoot, "generated-samples");
    const modules = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? modules(join(d, e.name)) : e.name.endsWith(".ts") ? [join(d, e.name)] : [],
      );
    const checked = modules(dir).filter((f) => !f.endsWith("_pb.ts"));
    expect(checked.length).toBeGreaterThan(10);
    const needs = checked.flatMap((f) => nodeNeeds(readFileSync(f, "utf8")).map((n) => `${relative(dir, f)} ${n}`));
    expect(needs).toEqual([]);
  });
});
