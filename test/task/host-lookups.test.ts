/**
 * The URL screen's host lookups (packages/runtime/src/task/host-lookups.ts) over a lookup the test answers by
 * hand, as a name server that never answers would leave getaddrinfo: at most two run at once, a host's callers
 * share one, a caller gives up at its timeout while the lookup keeps its lane, and a lookup nobody waits for by
 * its turn is not started. The real node:dns path is the screen's own tests' (push-sender.test.ts).
 */
import { describe, expect, it } from "vitest";
import {
  HostLookups,
  type LookupAddress,
  type LookupAll,
  MAX_LOOKUPS,
  UnresolvedHostError,
} from "../../packages/runtime/src/task/host-lookups.js";

/** A lookup that answers only when told: the calls under way, by host, each with its answer. */
function handLookup() {
  const calls: { host: string; answer: (all: LookupAddress[]) => void }[] = [];
  const lookup: LookupAll = (host, done) => {
    calls.push({ host, answer: (all) => done(null, all) });
  };
  return { calls, lookup };
}

const address = (a: string): LookupAddress[] => [{ address: a, family: 4 }];
const outcome = (p: Promise<unknown>) =>
  p.then(
    (v) => v,
    (e: unknown) => (e instanceof UnresolvedHostError ? `unresolved: ${e.message}` : e),
  );

describe("host lookups", () => {
  it("run at most two at once, the others in order as lanes free", async () => {
    const { calls, lookup } = handLookup();
    const lookups = new HostLookups(lookup);
    const answers = ["a", "b", "c", "d"].map((h) => lookups.addresses(`${h}.test`, 10_000));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls.map((c) => c.host)).toEqual(["a.test", "b.test"]);
    expect(MAX_LOOKUPS).toBe(2);
    calls[1]!.answer(address("192.0.2.2"));
    await expect(answers[1]).resolves.toEqual(address("192.0.2.2"));
    expect(calls.map((c) => c.host)).toEqual(["a.test", "b.test", "c.test"]);
    calls[0]!.answer(address("192.0.2.1"));
    await expect(answers[0]).resolves.toEqual(address("192.0.2.1"));
    expect(calls.map((c) => c.host)).toEqual(["a.test", "b.test", "c.test", "d.test"]);
    calls[2]!.answer(address("192.0.2.3"));
    calls[3]!.answer(address("192.0.2.4"));
    expect(await Promise.all(answers)).toEqual(["1", "2", "3", "4"].map((n) => address(`192.0.2.${n}`)));
  });

  it("share one lookup among a host's callers", async () => {
    const { calls, lookup } = handLookup();
    const lookups = new HostLookups(lookup);
    const answers = [1, 2, 3].map(() => lookups.addresses("same.test", 10_000));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toHaveLength(1);
    calls[0]!.answer(address("192.0.2.1"));
    expect(await Promise.all(answers)).toEqual([1, 2, 3].map(() => address("192.0.2.1")));
  });

  it("answer a caller unresolved at its timeout; a lookup never answered keeps its lane", async () => {
    const { calls, lookup } = handLookup();
    const lookups = new HostLookups(lookup);
    const stuck = [lookups.addresses("never1.test", 50), lookups.addresses("never2.test", 50)];
    expect(await Promise.all(stuck.map(outcome))).toEqual([
      "unresolved: host never1.test did not resolve within 50 ms",
      "unresolved: host never2.test did not resolve within 50 ms",
    ]);
    // Both lanes are still held: a third host waits, and is unresolved at its own timeout, never started.
    expect(await outcome(lookups.addresses("good.test", 50))).toBe(
      "unresolved: host good.test did not resolve within 50 ms",
    );
    // Its caller gone (and its deadline well past), its turn comes: it is not started.
    await new Promise((resolve) => setTimeout(resolve, 20));
    calls[0]!.answer(address("192.0.2.1"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls.map((c) => c.host)).toEqual(["never1.test", "never2.test"]);
    // A lane free again: the next caller's lookup runs.
    const next = lookups.addresses("good.test", 10_000);
    await new Promise((resolve) => setTimeout(resolve, 10));
    calls[2]!.answer(address("192.0.2.3"));
    await expect(next).resolves.toEqual(address("192.0.2.3"));
  });
});
