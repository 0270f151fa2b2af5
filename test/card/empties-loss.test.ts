/**
 * What the empties-dropped form loses (card/empties-loss.ts with canonical.ts's emptinessTest), on a card whose
 * extension params Struct nests deep: the answer is the path of the first empty member, and each object of the
 * Struct is read a bounded number of times, whatever its depth (the test of emptiness remembers each object it
 * judged). Asking it afresh at every depth, as before, read the object at depth k about k times: a card under
 * 1 MiB nested 1,500 deep cost 100 s of one thread when verified.
 */
import { describe, expect, it } from "vitest";
import { emptinessTest } from "../../packages/runtime/src/card/canonical.js";
import { emptiesLostIn } from "../../packages/runtime/src/card/empties-loss.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A chain of `depth` objects {next: …}, each counting how often its members are listed, ending in `leaf`. */
function countedChain(depth: number, leaf: Json): { root: Json; reads: number[] } {
  const reads = Array.from({ length: depth }, () => 0);
  let node: Json = leaf;
  for (let level = depth - 1; level >= 0; level--) {
    const target: { [key: string]: Json } = { next: node };
    node = new Proxy(target, {
      ownKeys(t) {
        reads[level]! += 1;
        return Reflect.ownKeys(t);
      },
    });
  }
  return { root: node, reads };
}

const cardWith = (params: Json) => ({
  name: "A",
  capabilities: { extensions: [{ uri: "urn:x", params: { deep: params } }] },
});

describe("what the empties-dropped form loses", () => {
  it("reads each object of a deep Struct a bounded number of times", () => {
    const { root, reads } = countedChain(200, [1, 2, 3]);
    expect(emptiesLostIn(cardWith(root), "AgentCard", "$", emptinessTest())).toBeUndefined();
    expect(Math.max(...reads)).toBeLessThanOrEqual(2);
  });

  it("names the first empty member at any depth", () => {
    const { root } = countedChain(50, [1, {}]);
    const lost = emptiesLostIn(cardWith(root), "AgentCard", "$", emptinessTest());
    expect(lost).toBe(`$.capabilities.extensions[0].params.deep${".next".repeat(50)}[1]`);
  });
});
