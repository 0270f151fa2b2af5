// @ts-check
// Rule: a module's section shows every export, sorted by name, and then the
// local declarations those exports name that no module of the same report
// exports (api-extractor's "forgotten exports"), sorted by name, each under a
// `// not exported: <file>` line and shown without `export`; so a change to a
// type the package uses but does not export shows too. Local: the files the
// report project holds (project.js); a name from a package or from a module
// the report leaves out (protoc-gen-es output) is not shown.
import { Node } from "ts-morph";
import { isOverloadedImplementation, isValueDeclaration, renderDeclaration } from "./render.js";

/** @typedef {import("ts-morph").SourceFile} SourceFile */
/** @typedef {import("ts-morph").Node} AnyNode */
/** @typedef {import("./render.js").Infer} Infer */
/** @typedef {{ name: string; text: string }} Entry */

/** Every declaration a module exports. */
export function exportedDeclarations(/** @type {SourceFile} */ file) {
  return new Set([...file.getExportedDeclarations().values()].flat());
}

/**
 * @param {SourceFile} file
 * @param {{ infer: Infer; exported: Set<AnyNode>; local: Set<string>; root: string }} options
 *   exported: what the report's modules export; local: the files whose declarations the report shows;
 *   root: what file paths are shown relative to
 * @returns {{ exports: Entry[]; referenced: Entry[] }}
 */
export function renderModule(file, { infer, exported, local, root }) {
  const typeOnly = typeOnlyExportNames(file);
  /** @type {Entry[]} */
  const exports = [];
  /** @type {AnyNode[]} */
  const refs = [];
  for (const [name, decls] of file.getExportedDeclarations()) {
    const shown = decls
      .filter((d) => !isOverloadedImplementation(d))
      .map((d) => {
        const r = renderDeclaration(name, d, { file, infer, exported: true });
        refs.push(...r.refs);
        return r.text;
      });
    const prefix = typeOnly.has(name) && decls.some(isValueDeclaration) ? "// type-only export\n" : "";
    exports.push({ name, text: prefix + shown.join("\n") });
  }
  /** @type {(Entry & { file: string })[]} */
  const referenced = [];
  const seen = new Set();
  for (let i = 0; i < refs.length; i++) {
    for (const decls of namedDeclarations(/** @type {AnyNode} */ (refs[i]), local)) {
      const first = /** @type {AnyNode & { getName(): string }} */ (decls[0]);
      if (seen.has(first) || decls.some((d) => exported.has(d))) continue;
      seen.add(first);
      const path = first.getSourceFile().getFilePath().slice(root.replace(/\/?$/, "/").length);
      const texts = decls
        .filter((d) => !isOverloadedImplementation(d))
        .map((d) => {
          const r = renderDeclaration(first.getName(), d, { file, infer, exported: false });
          refs.push(...r.refs);
          return r.text;
        });
      referenced.push({ name: first.getName(), file: path, text: `// not exported: ${path}\n${texts.join("\n")}` });
    }
  }
  return {
    exports: exports.sort((a, b) => compareNames(a.name, b.name)),
    referenced: referenced.sort((a, b) => compareNames(a.name, b.name) || compareNames(a.file, b.file)),
  };
}

/** Case-insensitive order with a case-sensitive tie-break: the same on every machine (no locale). */
export function compareNames(/** @type {string} */ a, /** @type {string} */ b) {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  if (x !== y) return x < y ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Names the module exports with `export type { ... }` or `export { type ... }`. */
function typeOnlyExportNames(/** @type {SourceFile} */ file) {
  const names = new Set();
  for (const decl of file.getExportDeclarations()) {
    for (const spec of decl.getNamedExports()) {
      if (decl.isTypeOnly() || spec.isTypeOnly()) names.add(spec.getAliasNode()?.getText() ?? spec.getName());
    }
  }
  return names;
}

/**
 * The declarations in local files of the names a node uses as types, in heritage clauses and in `typeof`;
 * one array per symbol.
 * @param {AnyNode} node
 * @param {Set<string>} local
 * @returns {AnyNode[][]}
 */
function namedDeclarations(node, local) {
  /** @type {AnyNode[][]} */
  const out = [];
  const visit = (/** @type {AnyNode} */ n) => {
    const name = Node.isTypeReference(n)
      ? n.getTypeName()
      : Node.isExpressionWithTypeArguments(n)
        ? n.getExpression()
        : Node.isTypeQuery(n)
          ? n.getExprName()
          : undefined;
    let symbol = name?.getSymbol();
    if (symbol?.isAlias()) symbol = symbol.getAliasedSymbol();
    const decls = (symbol?.getDeclarations() ?? []).filter(
      (d) => isNamedDeclaration(d) && local.has(d.getSourceFile().getFilePath()),
    );
    if (decls.length) out.push(decls);
    n.forEachChild(visit);
  };
  visit(node);
  return out;
}

function isNamedDeclaration(/** @type {AnyNode} */ d) {
  return (
    Node.isInterfaceDeclaration(d) ||
    Node.isTypeAliasDeclaration(d) ||
    Node.isClassDeclaration(d) ||
    Node.isEnumDeclaration(d) ||
    Node.isFunctionDeclaration(d) ||
    Node.isVariableDeclaration(d) ||
    Node.isModuleDeclaration(d)
  );
}
