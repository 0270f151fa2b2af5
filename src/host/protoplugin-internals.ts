/**
 * The parts of @bufbuild/protoplugin that a plugin host needs, loaded without
 * the package index. The index statically imports protoplugin's transpiler,
 * which loads the TypeScript compiler (about half a second) even when nothing
 * is transpiled. This plugin emits every target itself, so it never needs it.
 * The version is pinned exactly in package.json; these modules are stable parts
 * of its dist layout.
 *
 * Which module of protoplugin's dist/esm/ holds each function is one table, `internalModules`: this module
 * loads them from it, and the bundle of the binary (scripts/build-bundle.js) imports them from it statically.
 */
import type { Schema, EcmaScriptPluginOptions, Target } from "@bufbuild/protoplugin";
import type { CodeGeneratorRequest } from "@bufbuild/protobuf/wkt";
import type { Edition } from "@bufbuild/protobuf/wkt";

export interface ParsedParameter<T> {
  parsed: T & EcmaScriptPluginOptions;
  sanitized: string;
}

export interface SchemaController<T extends object> extends Schema<T> {
  getFileInfo(): { name: string; content: string; preamble?: string | undefined }[];
  prepareGenerate(target: Target): void;
}

export interface Internals {
  parseParameter<T>(parameter: string, parse: (raw: { key: string; value: string }[]) => T): ParsedParameter<T>;
  createSchema<T extends object>(
    request: CodeGeneratorRequest,
    parameter: ParsedParameter<T>,
    pluginName: string,
    pluginVersion: string | undefined,
    minimumEdition: Edition,
    maximumEdition: Edition,
  ): SchemaController<T>;
  isPluginOptionError(e: unknown): e is Error;
  /** An import path as protoplugin rewrites it (rewrite_imports, import_extension). */
  rewriteImportPath(
    importPath: string,
    rewriteImports: EcmaScriptPluginOptions["rewriteImports"],
    importExtension: EcmaScriptPluginOptions["importExtension"],
  ): string;
  /** A path from the output root made relative to the importing module (both as `./dir/file.js`). */
  makeImportPathRelative(importer: string, importPath: string): string;
  /** A name made safe as a JavaScript identifier, as protoc-gen-es makes the names it exports. */
  safeIdentifier(name: string): string;
}

/** Each function's module in protoplugin's dist/esm/. */
export const internalModules: { readonly [K in keyof Internals]: string } = {
  parseParameter: "parameter.js",
  createSchema: "schema.js",
  isPluginOptionError: "error.js",
  rewriteImportPath: "import-path.js",
  makeImportPathRelative: "import-path.js",
  safeIdentifier: "safe-identifier.js",
};

const base = new URL("./", import.meta.resolve("@bufbuild/protoplugin"));
const files = [...new Set(Object.values(internalModules))];
const loaded = await Promise.all(
  files.map((file) => import(new URL(file, base).href) as Promise<Record<string, unknown>>),
);
const modules = new Map(files.map((file, i) => [file, loaded[i]]));

export const internals = Object.fromEntries(
  Object.entries(internalModules).map(([name, file]) => [name, modules.get(file)?.[name]]),
) as unknown as Internals;

for (const [name, fn] of Object.entries(internals)) {
  if (typeof fn !== "function") {
    throw new Error(
      `@bufbuild/protoplugin: ${name} not found in ${base.pathname}; this plugin needs the pinned version`,
    );
  }
}
