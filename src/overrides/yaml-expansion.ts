/**
 * How large a parsed YAML document becomes once its aliases are expanded, measured on the syntax tree before
 * it is turned into values, so that a small file of aliases (a "billion laughs") is refused before it costs
 * anything.
 *
 * Rule: the size of a scalar is its source text (at least 1), of a collection the sum of its items' sizes
 * plus 1 per item (a pair: key and value), of an alias the size of the node it names, which is the node with
 * that anchor last seen before the alias in document order (the `yaml` package's own rule). Each anchored node
 * is measured once. Walking the document in order, the expanded total is the sum of what the file's own nodes
 * and its aliases bring; the first alias that takes the total over the limit is the one reported. An alias
 * inside the node it names (a cycle, which would make values that hold themselves) is reported too.
 */
import type { Document, Node } from "yaml";

export type Expansion =
  | { readonly ok: true; readonly bytes: number }
  | { readonly ok: false; readonly why: "limit" | "cycle"; readonly offset: number };

interface YamlKinds {
  isAlias(n: unknown): boolean;
  isScalar(n: unknown): boolean;
  isCollection(n: unknown): boolean;
  isPair(n: unknown): boolean;
  visit: typeof import("yaml").visit;
}

type AnyNode = Node & { source?: string; items?: unknown[]; key?: unknown; value?: unknown };

class Cycle extends Error {}

/** Measures `doc`'s expanded size against `limit` (the yaml package is passed in: it is loaded lazily). */
export function measureExpansion(yaml: YamlKinds, doc: Document, limit: number): Expansion {
  const sourceOf = new Map<unknown, AnyNode | undefined>();
  const anchors = new Map<string, AnyNode>();
  yaml.visit(doc, {
    Node: (_key, node) => {
      const n = node as AnyNode;
      if (yaml.isAlias(n)) sourceOf.set(n, anchors.get(n.source!));
      else if (n.anchor) anchors.set(n.anchor, n);
    },
  });

  const memo = new Map<unknown, number>();
  const open = new Set<unknown>();
  const size = (node: unknown): number => {
    if (node === null || node === undefined) return 1;
    const n = node as AnyNode;
    if (yaml.isAlias(n)) return size(sourceOf.get(n));
    if (yaml.isScalar(n)) return Math.max(1, n.range ? n.range[1] - n.range[0] : String(n.toJSON()).length);
    if (yaml.isPair(n)) return size(n.key) + size(n.value) + 1;
    if (!yaml.isCollection(n)) return 1;
    const known = memo.get(n);
    if (known !== undefined) return known;
    if (open.has(n)) throw new Cycle();
    open.add(n);
    const total = (n.items ?? []).reduce<number>((sum, item) => sum + size(item) + 1, 0);
    open.delete(n);
    memo.set(n, total);
    return total;
  };

  // The walk over the file's own nodes: each adds its text, each alias the size of what it names.
  let total = 0;
  const walk = (node: unknown): Expansion | undefined => {
    if (node === null || node === undefined) return undefined;
    const n = node as AnyNode;
    if (yaml.isAlias(n)) {
      try {
        total += size(sourceOf.get(n));
      } catch (e) {
        if (e instanceof Cycle) return { ok: false, why: "cycle", offset: n.range?.[0] ?? 0 };
        throw e;
      }
      return total > limit ? { ok: false, why: "limit", offset: n.range?.[0] ?? 0 } : undefined;
    }
    if (yaml.isPair(n)) return walk(n.key) ?? walk(n.value);
    if (!yaml.isCollection(n)) {
      total += size(n);
      return undefined;
    }
    for (const item of n.items ?? []) {
      total += 1;
      const found = walk(item);
      if (found) return found;
    }
    return undefined;
  };
  return walk(doc.contents) ?? { ok: true, bytes: total };
}
