// @ts-check
// Rule: the report parses only the files it needs. Its project holds the
// modules reported and the local files they reach by relative specifiers
// (re-exports and imports), with module resolution off (noResolve): no
// package, no @types, lib ES2022 only; that is enough to follow re-exports and
// to read the types the source writes. A type the source leaves out and the
// syntax does not give goes to a second project, created on first need, that
// resolves everything as tsc would (skipLibCheck). Checker text is written as
// in its module and loses the root's absolute path.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Node, Project, TypeFormatFlags, ts } from "ts-morph";

/** @typedef {import("ts-morph").Node} AnyNode */
/**
 * @typedef {{ sourceFile: (path: string) => import("ts-morph").SourceFile; files: Set<string>;
 *   infer: (node: AnyNode, what: "type" | "return") => string }} ReportProject files: the local files held
 */

const typeFlags =
  TypeFormatFlags.NoTruncation |
  TypeFormatFlags.UseAliasDefinedOutsideCurrentScope |
  TypeFormatFlags.WriteArrowStyleSignature;

/**
 * @param {string} root
 * @param {string[]} modules absolute paths of the modules reported
 * @returns {ReportProject}
 */
export function reportProject(root, modules) {
  const options = compilerOptions(root);
  const { files, packageReexport } = localFiles(modules);
  // A re-export from a package needs resolution to be followed; then the one project resolves everything.
  const main = new Project({
    compilerOptions: { ...options, noResolve: !packageReexport },
    skipAddingFilesFromTsConfig: true,
  });
  for (const file of files) main.addSourceFileAtPath(file);
  /** @type {Project | undefined} */
  let full = packageReexport ? main : undefined;
  const scrub = (/** @type {string} */ text) => text.split(root.replace(/\/?$/, "/")).join("");
  return {
    sourceFile: (path) => main.getSourceFileOrThrow(path),
    files: new Set(files.map((f) => main.getSourceFileOrThrow(f).getFilePath())),
    infer(node, what) {
      full ??= new Project({ compilerOptions: options, skipAddingFilesFromTsConfig: true });
      const twin = sameNode(full, node);
      const type = what === "return" && Node.isSignaturedDeclaration(twin) ? twin.getReturnType() : twin.getType();
      return scrub(type.getText(twin, typeFlags));
    },
  };
}

/** The node of `full` at the same place as `node` (same file, start and kind). */
function sameNode(/** @type {Project} */ full, /** @type {AnyNode} */ node) {
  const path = node.getSourceFile().getFilePath();
  const file = full.getSourceFile(path) ?? full.addSourceFileAtPath(path);
  for (let n = file.getDescendantAtPos(node.getStart()); n; n = n.getParent()) {
    if (n.getKind() === node.getKind() && n.getStart() === node.getStart()) return n;
  }
  throw new Error(`api-report: no ${node.getKindName()} at ${path}:${node.getStartLineNumber()} in the full project`);
}

/** tsconfig.base.json's options when the root has one, for a report: no emit, ES2022, NodeNext, skipLibCheck. */
function compilerOptions(/** @type {string} */ root) {
  const base = join(root, "tsconfig.base.json");
  const json = existsSync(base) ? JSON.parse(readFileSync(base, "utf8")).compilerOptions : { strict: true };
  const { options, errors } = ts.convertCompilerOptionsFromJson(json, root);
  if (errors[0]) {
    throw new Error(`api-report: ${base}: ${ts.flattenDiagnosticMessageText(errors[0].messageText, "\n")}`);
  }
  return {
    ...options,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    skipLibCheck: true,
    noEmit: true,
  };
}

/**
 * The modules and the local files their exports come from: a file reached by `export ... from "./x.js"` (./x.ts),
 * or by any relative import of a file that may export what it imports (`export { a }`, `export default`);
 * read with ts.preProcessFile, no parse. And whether one of them re-exports from a package.
 * @param {string[]} modules
 */
function localFiles(modules) {
  const files = new Set(modules);
  let packageReexport = false;
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const exportsImports = /export\s+(type\s+)?\{[^}]*\}(?!\s*from)|export\s+default\s|export\s*=/.test(text);
    for (const { fileName } of ts.preProcessFile(text, true, false).importedFiles) {
      const reexport = reexportsFrom(text, fileName);
      if (!fileName.startsWith(".")) packageReexport ||= reexport;
      if (!fileName.startsWith(".") || !(reexport || exportsImports)) continue;
      const target = resolve(dirname(file), fileName.replace(/\.(m|c)?js$/, ".$1ts"));
      const found = [target, `${target}.ts`, join(target, "index.ts")].find(
        (p) => /\.(m|c)?ts$/.test(p) && existsSync(p),
      );
      if (found) files.add(found);
    }
  }
  return { files: [...files], packageReexport };
}

/** Whether the text has `export ... from "<specifier>"`. */
function reexportsFrom(/** @type {string} */ text, /** @type {string} */ specifier) {
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`export\\s[^;]*?from\\s*["']${quoted}["']`).test(text);
}
