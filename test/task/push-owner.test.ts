/**
 * Push deliveries carry their task's owner (StoredPushConfig.owner, PushDelivery.owner), on the memory store and
 * on PostgreSQL: the push sender shares maxConcurrentPerOwner and maxQueuedBytesPerOwner by it
 * (push-shares.ts, tested in push-sender.test.ts). createTaskHandler runs in process with a sender that keeps what
 * it is given; alice's task's deliveries name her owner, and a task nobody authenticated has owner "".
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTaskHandler, ownerOf, type PushDelivery, type TaskStore } from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { callerContext, principal } from "../helpers/caller-context.js";
import { askingAgent, BACKENDS, configRequest, send } from "../helpers/scoping-agent.js";
import { freshTenant } from "./store-fixtures.js";

describe.each(BACKENDS)("push deliveries, $name store", (backend) => {
  let store: TaskStore;

  beforeAll(async () => {
    store = await backend.make();
  });

  afterAll(async () => {
    await store?.close();
  });

  it("carry the owner of their task: the authenticated caller's, or '' for nobody", async () => {
    const deliveries: PushDelivery[] = [];
    const sender = {
      checkUrl: async () => undefined,
      send: (d: PushDelivery) => void deliveries.push(d),
      idle: async () => undefined,
    };
    const h = createTaskHandler({ definition: A2AServiceV1_0, executor: askingAgent, store, push: { sender } });
    const tenant = freshTenant();
    const alice = principal("alice");
    const callers = [
      ["alice", callerContext(alice, { tenant })],
      ["nobody", callerContext(undefined, { tenant })],
    ] as const;
    for (const [who, context] of callers) {
      const asked = await send(h, context);
      await h.createTaskPushNotificationConfig!(configRequest(asked.id, `https://hooks.example/${who}`), context);
      await send(h, context, "answer", { taskId: asked.id });
    }
    const seen = () => new Set(deliveries.map((d) => `${new URL(d.config.url).pathname} owner "${d.owner}"`));
    await vi.waitFor(() => expect(seen()).toEqual(new Set([`/alice owner "${ownerOf(alice)}"`, '/nobody owner ""'])));
    expect(ownerOf(alice)).not.toBe("");
  });
});
