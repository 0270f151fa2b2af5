/**
 * The memory store's copies (copy.ts): deepCopy shares no object with what it
 * copies, whatever the field kind; copyReusing takes as they are exactly the
 * parts identical, at the same place, to the kept value, and copies the rest.
 */
import { describe, expect, it } from "vitest";
import { copyReusing, deepCopy } from "../../packages/runtime/src/task/copy.js";

const sample = () => ({
  $typeName: "x.Sample",
  when: { seconds: 12n, nanos: 3 },
  bytes: new Uint8Array([1, 2, 3]),
  list: [{ a: 1 }, { a: 2 }],
  json: JSON.parse('{"__proto__": {"polluted": true}, "nested": [null, "x"]}') as Record<string, unknown>,
  date: new Date(0),
});

describe("deepCopy", () => {
  it("copies every object, keeps a Struct's own __proto__ key as a key, and equals the original", () => {
    const original = sample();
    const copy = deepCopy(original);
    expect(copy).toEqual(original);
    expect(copy.when).not.toBe(original.when);
    expect(copy.bytes).not.toBe(original.bytes);
    expect(copy.list[0]).not.toBe(original.list[0]);
    expect(copy.date).not.toBe(original.date);
    expect(Object.hasOwn(copy.json, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(copy.json)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("copyReusing", () => {
  it("takes the parts identical at the same place as they are and copies the others", () => {
    const kept = deepCopy(sample());
    const next = { ...kept, list: [...kept.list, { a: 3 }], json: { ...kept.json, added: 1 } };
    const copy = copyReusing(next, kept);
    expect(copy).toEqual(next);
    expect(copy).not.toBe(next);
    expect(copy.when).toBe(kept.when);
    expect(copy.bytes).toBe(kept.bytes);
    expect(copy.list).not.toBe(next.list);
    expect(copy.list[0]).toBe(kept.list[0]);
    expect(copy.list[2]).not.toBe(next.list[2]);
    expect(copy.json).not.toBe(next.json);
    expect(copy.json.nested).toBe(kept.json.nested);
    expect(Object.hasOwn(copy.json, "__proto__")).toBe(true);
  });

  it("copies a part that moved, or that only looks like the kept one", () => {
    const kept = deepCopy(sample());
    const moved = { ...kept, list: [kept.list[1], kept.list[0]] as typeof kept.list };
    const copy = copyReusing(moved, kept);
    expect(copy.list).toEqual([{ a: 2 }, { a: 1 }]);
    expect(copy.list[0]).not.toBe(kept.list[1]);
    const lookalike = { ...kept, when: { seconds: 12n, nanos: 3 } };
    expect(copyReusing(lookalike, kept).when).not.toBe(lookalike.when);
  });
});
