/**
 * A webhook host whose DNS never answers holds nothing up: past lookupTimeoutMs the name counts as
 * unresolved, so a new config is accepted at once and each delivery attempt fails and is retried. The
 * resolver cannot be made slow from here (getaddrinfo reads the system's configuration), so this file
 * replaces node:dns's lookup, before the runtime first reads it, with one that never calls back for
 * `never.test`; every other name resolves as usual.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { describe, expect, it } from "vitest";

const dns = createRequire(import.meta.url)("node:dns") as typeof import("node:dns");
const lookup = dns.lookup;
const patched = (host: string, ...rest: unknown[]) => {
  if (host === "never.test") return; // a resolver that never answers
  return (lookup as (...args: unknown[]) => void)(host, ...rest);
};
(dns as { lookup: unknown }).lookup = patched;
syncBuiltinESMExports();
const { createPushSender } = await import("../../packages/runtime/src/task/push.js");

describe("a host whose DNS never answers", () => {
  it("is accepted by checkUrl after lookupTimeoutMs, as a name that does not resolve yet", async () => {
    const sender = createPushSender({ lookupTimeoutMs: 50 });
    await expect(sender.checkUrl("https://never.test/hook")).resolves.toBeUndefined();
  });

  it("fails each delivery attempt after lookupTimeoutMs, saying so, and gives up after the last", async () => {
    const errors: Error[] = [];
    const sender = createPushSender({
      lookupTimeoutMs: 50,
      attempts: 2,
      initialBackoffMs: 1,
      onError: (e) => errors.push(e),
    });
    const config = {
      $typeName: "lf.a2a.v1.TaskPushNotificationConfig" as const,
      tenant: "",
      taskId: "t",
      id: "c",
      url: "https://never.test/hook",
      token: "",
    };
    sender.send({ config, protocolVersion: "1.0", body: "{}" });
    await sender.idle();
    expect(errors.map((e) => e.message)).toEqual([
      "push delivery to https://never.test/hook for task t (config c) failed after 2 attempts: " +
        "host never.test did not resolve within 50 ms",
    ]);
  });

  it("refuses a lookupTimeoutMs below 1, naming it", () => {
    expect(() => createPushSender({ lookupTimeoutMs: 0 })).toThrow(/option lookupTimeoutMs must be a number >= 1/);
  });
});
