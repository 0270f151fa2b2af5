/**
 * The data trees the OpenAPI and OpenRPC documents are built as, and their printing.
 *
 * Rule: a document is a plain JSON value built by functions (never text); it is printed as JSON
 * (two-space indent) or as YAML by yaml-print.ts (block style, no anchors, aliases or folding), so that
 * the same tree always prints the same bytes. Key order is insertion order.
 */
import { printYaml, type PlainValue } from "./yaml-print.js";

export type Tree = PlainValue;
export type TreeObject = { readonly [key: string]: Tree };

export function printTree(tree: Tree, format: "yaml" | "json"): string {
  if (format === "json") return JSON.stringify(tree, null, 2) + "\n";
  return printYaml(tree);
}

/** The object without the keys whose value is undefined (optional parts of a document left out). */
export function compact(o: { readonly [key: string]: Tree | undefined }): TreeObject {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, Tree] => e[1] !== undefined));
}
