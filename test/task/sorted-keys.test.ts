/**
 * The ListTasks index structures against a plain sorted array: random
 * inserts and removes (enough to split blocks and merge them back, with
 * equal timestamps so ties fall to the id), checked after every step for
 * order, size, prefix counts and slices; then a TenantIndex picking the set
 * of each filter combination.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TenantIndex } from "../../packages/runtime/src/task/list-index.js";
import { compareKeys, type IndexKey, SortedKeys } from "../../packages/runtime/src/task/sorted-keys.js";

function check(set: SortedKeys, reference: IndexKey[], probe: IndexKey): void {
  expect(set.size).toBe(reference.length);
  expect(set.slice(0, set.size)).toEqual(reference);
  const before = reference.filter((k) => compareKeys(k, probe) <= 0).length;
  expect(set.countBefore((k) => compareKeys(k, probe) <= 0)).toBe(before);
  expect(set.countBefore((k) => k.micros > probe.micros)).toBe(reference.filter((k) => k.micros > probe.micros).length);
  expect(set.slice(before, before + 7)).toEqual(reference.slice(before, before + 7));
}

describe("SortedKeys", () => {
  it("matches a sorted array over thousands of inserts and removes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 2, max: 40 }), (seed, spread) => {
        let state = seed;
        const next = (n: number) => {
          state = (Math.imul(state, 1103515245) + 12345) >>> 0;
          return state % n;
        };
        const set = new SortedKeys();
        let reference: IndexKey[] = [];
        for (let step = 0; step < 3000; step++) {
          // Grow for the first 1800 steps (blocks split), then mostly shrink (blocks merge and empty).
          const removing = reference.length > 0 && next(step < 1800 ? 4 : 10) < (step < 1800 ? 1 : 8);
          if (removing) {
            const victim = reference[next(reference.length)] as IndexKey;
            expect(set.remove({ ...victim })).toBe(true);
            reference = reference.filter((k) => k !== victim);
          } else {
            const key = { micros: next(spread) * 1000, id: `k${step}-${next(1000)}` };
            set.insert(key);
            reference.push(key);
            reference.sort(compareKeys);
          }
          if (step % 50 === 0 || step > 2900)
            check(set, reference, { micros: next(spread) * 1000, id: `k${next(3000)}` });
        }
        expect(set.remove({ micros: -1, id: "absent" })).toBe(false);
      }),
      { numRuns: 6 },
    );
  });
});

describe("TenantIndex", () => {
  it("keeps one set per filter combination and drops emptied ones", () => {
    const index = new TenantIndex();
    const tasks = [
      { key: { micros: 3, id: "a" }, contextId: "c1", state: 1 },
      { key: { micros: 2, id: "b" }, contextId: "c1", state: 2 },
      { key: { micros: 1, id: "c" }, contextId: "c2", state: 2 },
    ];
    for (const t of tasks) index.add(t);
    const ids = (contextId: string, state: number) =>
      index
        .select({ contextId, state })
        ?.slice(0, 10)
        .map((k) => k.id);
    expect(ids("", 0)).toEqual(["a", "b", "c"]);
    expect(ids("c1", 0)).toEqual(["a", "b"]);
    expect(ids("", 2)).toEqual(["b", "c"]);
    expect(ids("c2", 2)).toEqual(["c"]);
    expect(ids("c2", 1)).toBeUndefined();
    index.remove(tasks[2] as (typeof tasks)[number]);
    expect(ids("c2", 0)).toBeUndefined();
    expect(ids("c2", 2)).toBeUndefined();
    expect(ids("", 2)).toEqual(["b"]);
    expect(index.size).toBe(2);
  });
});
