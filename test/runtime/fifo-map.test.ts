/**
 * FifoMap (packages/runtime/src/core/fifo-map.ts) against a plain Map driven by the same random operations: the
 * same values, the same order (a key set again becomes the newest), the same oldest entry; deleting inside
 * `entries()` loops; and the order array stays within 2 × size + 64 slots whatever the mix of operations, so a
 * cache that keeps setting the same few keys does not grow.
 */
import { describe, expect, it } from "vitest";
import { FifoMap } from "../../packages/runtime/src/core/fifo-map.js";

/** A small deterministic generator (mulberry32), so that a failure repeats. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The reference: a Map whose re-set keys move to the end. */
function setLast<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
}

function keysOf<K, V>(fifo: FifoMap<K, V>): K[] {
  return [...fifo.entries()].map((e) => e.key);
}

describe("FifoMap", () => {
  it("agrees with a Map on values, order and the oldest entry over random operations", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const next = random(seed);
      const fifo = new FifoMap<number, number>();
      const ref = new Map<number, number>();
      for (let step = 0; step < 20_000; step++) {
        const key = Math.floor(next() * 300);
        const op = next();
        if (op < 0.5) {
          fifo.set(key, step);
          setLast(ref, key, step);
        } else if (op < 0.75) {
          expect(fifo.delete(key)).toBe(ref.delete(key));
        } else if (op < 0.95) {
          const oldest = fifo.oldest();
          const first = ref.entries().next();
          expect(oldest && [oldest.key, oldest.value]).toEqual(first.done ? undefined : first.value);
          if (oldest && next() < 0.8) {
            fifo.delete(oldest.key);
            ref.delete(oldest.key);
          }
        } else {
          expect(fifo.get(key)).toBe(ref.get(key));
          expect(fifo.has(key)).toBe(ref.has(key));
        }
        expect(fifo.size).toBe(ref.size);
        if (step % 997 === 0) expect(keysOf(fifo)).toEqual([...ref.keys()]);
      }
      expect([...fifo.entries()].map((e) => [e.key, e.value])).toEqual([...ref.entries()]);
    }
  });

  it("lets an entries() loop delete what it gets, and the next loop starts after them", () => {
    const fifo = new FifoMap<string, number>();
    for (let i = 0; i < 10; i++) fifo.set(`k${i}`, i);
    fifo.set("k2", 20); // now the newest
    for (const { key, value } of fifo.entries()) {
      if (value >= 5) break;
      fifo.delete(key);
    }
    expect(keysOf(fifo)).toEqual(["k5", "k6", "k7", "k8", "k9", "k2"]);
    expect(fifo.oldest()).toEqual({ key: "k5", value: 5 });
    expect(fifo.slots).toBe(6); // k5…k9 and the newest k2: the deleted keys and the first k2 are behind it
  });

  it("keeps the order array within 2 × size + 64 slots when the same keys are set over and over", () => {
    const fifo = new FifoMap<string, number>();
    let most = 0;
    for (let i = 0; i < 100_000; i++) {
      fifo.set(`k${i % 5}`, i);
      most = Math.max(most, fifo.slots);
    }
    expect(fifo.size).toBe(5);
    expect(most).toBeLessThanOrEqual(2 * 5 + 64);
    expect(keysOf(fifo)).toEqual(["k0", "k1", "k2", "k3", "k4"]);
  });

  it("keeps the bound as a queue: the oldest dropped for each new key, and after deleting most keys", () => {
    const fifo = new FifoMap<number, number>();
    for (let i = 0; i < 1_000; i++) fifo.set(i, i);
    for (let i = 1_000; i < 50_000; i++) {
      const oldest = fifo.oldest();
      if (oldest) fifo.delete(oldest.key);
      fifo.set(i, i);
      expect(fifo.slots).toBeLessThanOrEqual(2 * fifo.size + 64);
    }
    expect(fifo.oldest()?.key).toBe(49_000);
    for (let i = 49_000; i < 49_990; i++) fifo.delete(i);
    fifo.set(-1, -1);
    expect(fifo.slots).toBeLessThanOrEqual(2 * fifo.size + 64);
    expect(keysOf(fifo)).toEqual([...Array.from({ length: 10 }, (_, i) => 49_990 + i), -1]);
    fifo.clear();
    expect([fifo.size, fifo.slots, fifo.oldest()]).toEqual([0, 0, undefined]);
  });
});
