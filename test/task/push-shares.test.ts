/**
 * PushShares' turns (packages/runtime/src/task/push-shares.ts), asked directly: a granted request gives its
 * turns back once however often give() is called; and the holder of a host's turn that others wait for goes
 * ahead of its owner's backlog however long it is, also when the backlog's own hosts' holders are moved up
 * after it. The sender's tests (push-sender.test.ts) show the same through real webhooks.
 */
import { describe, expect, it } from "vitest";
import { PushShares, type TurnRequest } from "../../packages/runtime/src/task/push-shares.js";

/** Lets the granted promises' callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const BIG = 1e9;

function shares(maxConcurrent: number, maxConcurrentPerHost: number): PushShares {
  return new PushShares({
    maxQueuedBytes: BIG,
    maxQueuedBytesPerHost: BIG,
    maxQueuedBytesPerOwner: BIG,
    maxConcurrent,
    maxConcurrentPerHost,
  });
}

describe("PushShares turns", () => {
  it("gives a granted request's turns back once, however often give() is called", async () => {
    const turns = shares(2, 1);
    const a = turns.askTurn({ host: "h1", owner: "" });
    const b = turns.askTurn({ host: "h2", owner: "" });
    expect([await a.granted, await b.granted]).toEqual([true, true]);
    a.give();
    a.give();
    const granted: string[] = [];
    for (const host of ["h3", "h4"]) {
      void turns.askTurn({ host, owner: "" }).granted.then((ok) => ok && granted.push(host));
    }
    await settle();
    // One turn in all was free, not two: b still holds the other.
    expect(granted).toEqual(["h3"]);
    b.give();
    await settle();
    expect(granted).toEqual(["h3", "h4"]);
  });

  it("gives nothing back for a request withdrawn before its grant", async () => {
    const turns = shares(1, 1);
    const holder = turns.askTurn({ host: "h1", owner: "" });
    await holder.granted;
    const waiting = turns.askTurn({ host: "h2", owner: "" });
    waiting.withdraw();
    expect(await waiting.granted).toBe(false);
    waiting.give();
    const next = turns.askTurn({ host: "h3", owner: "" });
    let got = false;
    void next.granted.then((ok) => (got = ok));
    await settle();
    expect(got).toBe(false);
    holder.give();
    await settle();
    expect(got).toBe(true);
  });

  it("serves the holder of a host's turn another owner waits for ahead of its owner's backlog", async () => {
    for (const backlog of [5, 50]) {
      const turns = shares(1, 1);
      const order: string[] = [];
      const running: TurnRequest[] = [];
      const attempt = (name: string, host: string, owner: string) => {
        const request = turns.askTurn({ host, owner });
        void request.granted.then((ok) => {
          if (!ok) return;
          order.push(name);
          running.push(request);
        });
      };
      attempt("z", "h0", "zed");
      await settle();
      attempt("aX", "hx", "alice");
      await settle();
      attempt("bX", "hx", "bob");
      await settle();
      // alice's backlog on two more hosts: each host's holder is moved up too, as alice's next attempts wait.
      for (let i = 0; i < backlog; i++) {
        attempt(`aY${i}`, "hy", "alice");
        attempt(`aZ${i}`, "hz", "alice");
      }
      await settle();
      while (running.length > 0) {
        running.shift()?.give();
        await settle();
      }
      expect(order.slice(0, 5), `backlog ${backlog}`).toEqual(["z", "aX", "aY0", "aZ0", "bX"]);
      expect(order).toHaveLength(3 + 2 * backlog);
    }
  });
});
