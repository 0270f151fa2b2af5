/**
 * The parts of @bufbuild/protoplugin that a plugin host needs, loaded without
 * the package index. The index statically imports protoplugin's transpiler,
 * which loads the TypeScript compiler (about half a second) even when nothing
 * is transpiled. This plugin emits every target itself, so it never needs it.
 * The version is pinned exactly in package.json; these modules are stable parts
 * of its dist layout.
 */
import type { Plugin, Schema, EcmaScriptPluginOptions, Target } from "@bufbuild/protoplugin";
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

interface Internals {
  parseParameter<T>(parameter: string, parse: (raw: { key: string; value: string }[]) => T): ParsedParameter<T>;
  createSchema<T extends object>(
    request: CodeGeneratorRequest,
    parameter: ParsedParameter<T>,
    pluginName: string,
    pluginVersion: string | undefined,
    minimumEdition: Edition,
    maximumEdition: Edition,
  ): SchemaController<T>;
  runNodeJs(plugin: Plugin): void;
  isPluginOptionError(e: unknown): e is Error;
  /** An import path as protoplugin rewrites it (rewrite_imports, import_extension). */
  rewriteImportPath(
    importPath: string,
    rewriteImports: EcmaScriptPluginOptions["rewriteImports"],
    importExtension: EcmaScriptPluginOptions["importExtension"],
  ): string;
  /** A path from the output root made relative to the importing module (both as `./dir/file.js`). */
  makeImportPathRelative(importer: string, importPath: string): string;
}

const base = new URL("./", import.meta.resolve("@bufbuild/protoplugin"));
const load = (file: string) => import(new URL(file, base).href) as Promise<Record<string, unknown>>;
const [parameter, schema, runNode, error, importPath] = await Promise.all([
  load("parameter.js"),
  load("schema.js"),
  load("run-node.js"),
  load("error.js"),
  load("import-path.js"),
]);

export const internals = {
  parseParameter: parameter["parseParameter"],
  createSchema: schema["createSchema"],
  runNodeJs: runNode["runNodeJs"],
  isPluginOptionError: error["isPluginOptionError"],
  rewriteImportPath: importPath["rewriteImportPath"],
  makeImportPathRelative: importPath["makeImportPathRelative"],
} as Internals;

for (const [name, fn] of Object.entries(internals)) {
  if (typeof fn !== "function") {
    throw new Error(
      `@bufbuild/protoplugin: ${name} not found in ${base.pathname}; this plugin needs the pinned version`,
    );
  }
}
