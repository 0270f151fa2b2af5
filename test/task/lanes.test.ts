/**
 * Lanes (packages/runtime/src/task/lanes.ts): at most `size` holders, waiters served by key in turns (round
 * robin), first come first served within a key but for those moved to the front (in the order moved),
 * withdrawals leaving no trace, a give() with nothing held refused; and, over seeded random runs of asks,
 * withdrawals, moves to the front and gives, that no key waiting is passed twice by another and nothing leaks.
 */
import { describe, expect, it } from "vitest";
import { Lanes, type LaneRequest } from "../../packages/runtime/src/task/lanes.js";

/** Lets the granted promises' callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Asks under `key`, recording `name` in `order` once granted. */
function asked(lanes: Lanes, key: string, name: string, order: string[]): LaneRequest {
  const request = lanes.ask(key);
  void request.granted.then((granted) => granted && order.push(name));
  return request;
}

describe("Lanes", () => {
  it("serves the keys waiting in turns, each key's waiters in the order they asked", async () => {
    const lanes = new Lanes(1);
    const order: string[] = [];
    asked(lanes, "alice", "a0", order);
    for (let i = 1; i <= 4; i++) asked(lanes, "alice", `a${i}`, order);
    asked(lanes, "bob", "b0", order);
    asked(lanes, "bob", "b1", order);
    asked(lanes, "carol", "c0", order);
    for (let i = 0; i < 8; i++) {
      await settle();
      lanes.give();
    }
    await settle();
    // alice was first in the round; bob and carol each get the next turn after one of hers, not after all.
    expect(order).toEqual(["a0", "a1", "b0", "c0", "a2", "b1", "a3", "a4"]);
    expect(lanes.unused).toBe(true);
  });

  it("is first come, first served under one key", async () => {
    const lanes = new Lanes(2);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) asked(lanes, "", String(i), order);
    for (let i = 0; i < 6; i++) lanes.give();
    await settle();
    expect(order).toEqual(["0", "1", "2", "3", "4", "5"]);
    expect(lanes.unused).toBe(true);
  });

  it("takes a key out of the round once its last waiter withdrew, and grants nothing to a withdrawn one", async () => {
    const lanes = new Lanes(1);
    const order: string[] = [];
    asked(lanes, "alice", "a0", order);
    const gone = asked(lanes, "alice", "a1", order);
    asked(lanes, "bob", "b0", order);
    gone.withdraw();
    gone.withdraw();
    expect(await gone.granted).toBe(false);
    asked(lanes, "alice", "a2", order); // alice waits again, now behind bob
    lanes.give();
    lanes.give();
    lanes.give();
    await settle();
    expect(order).toEqual(["a0", "b0", "a2"]);
    expect(lanes.unused).toBe(true);
  });

  it("moves a waiter to the front of its key's queue with first(), not ahead of other keys", async () => {
    const lanes = new Lanes(1);
    const order: string[] = [];
    asked(lanes, "alice", "a0", order);
    asked(lanes, "alice", "a1", order);
    asked(lanes, "bob", "b0", order);
    const urgent = asked(lanes, "alice", "a2", order);
    urgent.first();
    urgent.first();
    for (let i = 0; i < 4; i++) lanes.give();
    await settle();
    expect(order).toEqual(["a0", "a2", "b0", "a1"]);
    urgent.first(); // granted: nothing
    expect(lanes.unused).toBe(true);
  });

  it("serves waiters moved to the front in the order they were moved, and a withdrawn one leaves no gap", async () => {
    const lanes = new Lanes(1);
    const order: string[] = [];
    asked(lanes, "alice", "a0", order);
    asked(lanes, "alice", "a1", order);
    const early = asked(lanes, "alice", "a2", order);
    const gone = asked(lanes, "alice", "a3", order);
    const late = asked(lanes, "alice", "a4", order);
    early.first();
    gone.first();
    late.first();
    // A move made later never passes one made earlier (a holder of a host's turn moved first stays first).
    early.first();
    gone.withdraw();
    asked(lanes, "alice", "a5", order).first();
    for (let i = 0; i < 5; i++) lanes.give();
    await settle();
    expect(order).toEqual(["a0", "a2", "a4", "a5", "a1"]);
    expect(lanes.unused).toBe(true);
  });

  it("refuses a give() with no lane held, which would let one lane too many be taken", () => {
    const lanes = new Lanes(1);
    expect(() => lanes.give()).toThrow("Lanes.give: no lane is held");
    lanes.ask();
    lanes.give();
    expect(() => lanes.give()).toThrow("Lanes.give: no lane is held");
  });

  it("never passes a waiting key twice, holds at most size and leaks nothing, over random runs", async () => {
    for (let seed = 1; seed <= 20; seed++) {
      let state = seed;
      const random = (n: number) => {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        return state % n;
      };
      const size = 1 + random(3);
      const lanes = new Lanes(size);
      const keys = ["a", "b", "c", "d"];
      let held = 0;
      const waiting = new Map<LaneRequest, string>();
      /** Per key, the grants others got since it last got one while it waited all along. */
      const passed = new Map<string, Map<string, number>>();
      const granted: string[] = [];
      for (let step = 0; step < 400; step++) {
        const roll = random(10);
        if (roll < 5) {
          const key = keys[random(keys.length)]!;
          const request = lanes.ask(key);
          waiting.set(request, key);
          void request.granted.then((ok) => {
            if (!ok) return;
            waiting.delete(request);
            granted.push(key);
          });
        } else if (roll < 7 && waiting.size > 0) {
          const all = [...waiting.keys()];
          const request = all[random(all.length)]!;
          if (random(2) === 0) request.first();
          else {
            waiting.delete(request);
            request.withdraw();
          }
        } else if (held > 0) {
          lanes.give();
          held -= 1;
        }
        await settle();
        for (const key of granted.splice(0)) {
          held += 1;
          passed.delete(key);
          const stillWaiting = new Set(waiting.values());
          for (const other of stillWaiting) {
            if (other === key) continue;
            const counts = passed.get(other) ?? new Map<string, number>();
            counts.set(key, (counts.get(key) ?? 0) + 1);
            passed.set(other, counts);
            expect(counts.get(key), `seed ${seed} step ${step}: ${key} passed ${other} twice`).toBe(1);
          }
        }
        for (const key of passed.keys()) if (![...waiting.values()].includes(key)) passed.delete(key);
        expect(held, `seed ${seed} step ${step}`).toBeLessThanOrEqual(size);
        // A lane is free only when nobody waits.
        if (waiting.size > 0) expect(held, `seed ${seed} step ${step}`).toBe(size);
      }
      for (const request of waiting.keys()) request.withdraw();
      for (; held > 0; held -= 1) lanes.give();
      await settle();
      expect(lanes.unused, `seed ${seed}`).toBe(true);
    }
  });
});
