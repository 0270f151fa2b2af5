/**
 * The watch's own rules (packages/runtime/src/task/task-watch.ts) where the store's timing decides, driven
 * through a hub that hands the watch events as a lagging shared topic would: a watch of the ends (a blocking
 * send's) passes by the events it does not keep even while an event it kept waits unread, so it ends at the
 * version `endAt` names once that event is read; and `seen` says where it stood.
 */
import { describe, expect, it } from "vitest";
import { eventReader, stateOf, watchTask, type WatchKeeps } from "../../packages/runtime/src/task/task-watch.js";
import type { TaskHub, HubListener } from "../../packages/runtime/src/task/task-hub.js";
import { create } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";

/** A hub whose one listener the test calls itself. */
function handHub(): { hub: TaskHub; deliver: (version: number, state: TaskState) => void } {
  let listener: HubListener | undefined;
  const hub = {
    async listen(_tenant: string, _taskId: string, _use: string, l: HubListener) {
      listener = l;
      return async () => {};
    },
  } as unknown as TaskHub;
  const deliver = (version: number, state: TaskState) => {
    const event = create(StreamResponseSchema, {
      payload: { case: "statusUpdate", value: { taskId: "t", status: { state } } },
    });
    listener!({ tenant: "", taskId: "t", version, event });
  };
  return { hub, deliver };
}

describe.each(["ends", "events"] as const satisfies readonly WatchKeeps[])("a watch keeping %s", (keeps) => {
  it("ends at endAt's version when a stale ending event waited unread before the ones passed by", async () => {
    const { hub, deliver } = handHub();
    const watch = await watchTask(hub, "", "t", 5, keeps);
    // The previous turn's INPUT_REQUIRED (5), the join (6) and the executor's WORKING (7), in one go.
    deliver(5, TaskState.INPUT_REQUIRED);
    deliver(6, TaskState.WORKING);
    deliver(7, TaskState.WORKING);
    const read = eventReader(watch, 6, new AbortController().signal);
    const events: number[] = [];
    const reading = (async () => {
      for (let e = await read(); e !== undefined; e = await read()) events.push(stateOf(e) ?? TaskState.UNSPECIFIED);
    })();
    // The executor returned leaving the task WORKING at version 7.
    watch.endAt(7);
    await expect(Promise.race([reading.then(() => "ended"), sleep(1000).then(() => "waiting")])).resolves.toBe("ended");
    expect(watch.seen()).toBe(7);
    expect(events).toEqual(keeps === "events" ? [TaskState.WORKING] : []);
    await watch.stop();
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
