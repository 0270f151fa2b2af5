/**
 * The data trees the OpenAPI and OpenRPC documents are built as, and their printing.
 *
 * Rule: a document is a plain JSON value built by functions (never text); it is printed as JSON
 * (two-space indent) or as YAML by the `yaml` package, without anchors or aliases and without line
 * folding, so that the same tree always prints the same bytes. Key order is insertion order. The `yaml`
 * package is loaded on the first YAML document only: a run without one does not pay for it (README, Start-up).
 */
import { createRequire } from "node:module";

type YamlModule = typeof import("yaml");
let yaml: YamlModule | undefined;

export type Tree = null | boolean | number | string | readonly Tree[] | { readonly [key: string]: Tree };
export type TreeObject = { readonly [key: string]: Tree };

export function printTree(tree: Tree, format: "yaml" | "json"): string {
  if (format === "json") return JSON.stringify(tree, null, 2) + "\n";
  yaml ??= createRequire(import.meta.url)("yaml") as YamlModule;
  return yaml.stringify(tree, { aliasDuplicateObjects: false, lineWidth: 0, minContentWidth: 0 });
}

/** The object without the keys whose value is undefined (optional parts of a document left out). */
export function compact(o: { readonly [key: string]: Tree | undefined }): TreeObject {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, Tree] => e[1] !== undefined));
}
