/**
 * Push delivery from the instance that commits: after each commit with
 * events, every config of the task gets each event, written in the protocol
 * version of the call that created the config.
 *
 *   body      payload[version](event, task) as JSON; "1.0" defaults to the
 *             ProtoJSON of the StreamResponse (S1 §4.3.3); a version without
 *             a payload is reported to onError and skipped
 *   order     one chain per task: the configs of a commit are read and its
 *             deliveries handed to the sender before the next commit's, so
 *             a webhook gets a task's updates in commit order
 *   blocking  never: the commit returns at once; the sender retries on its
 *             own, and every failure goes to onError
 *   configs   read after each commit; a store unavailable for it is asked
 *             again (store-retry.ts, each failure reported), then the loss is
 *             reported naming the task and how many events went unsent
 *   trace     with telemetry, each delivery carries a PushTrace (its parent:
 *             the turn that committed, else the call), which the sender
 *             tells of each attempt and the end
 *   copies    the committed task may share the store's objects (task-writer.ts),
 *             so a payload function gets a copy of it, one per commit
 *   bodies    each event is written once per protocol version and the one
 *             string goes to every config of that version, so a task with
 *             many configs holds one body per event, not one per config
 */
import { toJson } from "@bufbuild/protobuf";
import type { StreamResponse, Task } from "./a2a-types.js";
import { deepCopy } from "./copy.js";
import type { PushOptions, PushPayload } from "./handler-deps.js";
import type { TaskSchemas } from "./schemas.js";
import type { TaskStore } from "./store.js";
import { whileStoreUnavailable } from "./store-retry.js";
import type { AfterCommit, Origin } from "./task-writer.js";
import type { TaskTelemetry } from "./telemetry.js";

export interface PushDeliveryHooks {
  readonly report: (error: unknown, origin: Origin) => void;
  /** Traces each delivery (telemetry.ts push), when given. */
  readonly telemetry: TaskTelemetry | undefined;
}

export function createPushDelivery(
  store: TaskStore,
  push: PushOptions,
  schemas: TaskSchemas,
  { report, telemetry }: PushDeliveryHooks,
): AfterCommit {
  const payloads: Readonly<Record<string, PushPayload>> = {
    "1.0": (e: StreamResponse) => toJson(schemas.streamResponse, e),
    ...push.payload,
  };
  const chains = new Map<string, Promise<void>>();

  /** The task's configs, read again while the store is unavailable; else undefined, the loss reported. */
  const configsOf = async (tenant: string, task: Task, events: number, origin: Origin) => {
    const read = () => store.listPushConfigs(tenant, task.id, 0, "");
    try {
      return (await whileStoreUnavailable(read, (e) => report(e, origin))).configs;
    } catch (error) {
      const place = `task ${task.id}${tenant === "" ? "" : ` (tenant "${tenant}")`}`;
      const lost = `${events} event${events === 1 ? "" : "s"}`;
      report(
        new Error(`push delivery for ${place}: its push configs could not be read; ${lost} not sent`, { cause: error }),
        origin,
      );
      return undefined;
    }
  };

  const deliver = async (tenant: string, task: Task, events: readonly StreamResponse[], origin: Origin) => {
    const configs = await configsOf(tenant, task, events.length, origin);
    if (configs === undefined || configs.length === 0) return;
    const view = deepCopy(task);
    /** Each event's body by protocol version, written once (module rules). */
    const written = new Map<string, (string | undefined)[]>();
    for (const { config, protocolVersion, owner } of configs) {
      const payload = payloads[protocolVersion];
      if (!payload) {
        const problem = `push config ${config.id} of task ${task.id}: no push payload for protocol ${protocolVersion}`;
        report(new Error(problem), origin);
        continue;
      }
      let bodies = written.get(protocolVersion);
      if (bodies === undefined) {
        bodies = events.map((event) => bodyOf(payload, event, view, (e) => report(e, origin)));
        written.set(protocolVersion, bodies);
      }
      for (const body of bodies) {
        if (body === undefined) continue;
        try {
          const trace = telemetry?.push({
            tenant,
            taskId: task.id,
            configId: config.id,
            url: config.url,
            protocolVersion,
            context: origin.context,
            turn: origin.turn,
          });
          push.sender.send({ config, protocolVersion, body, trace, owner });
        } catch (e) {
          report(e, origin);
        }
      }
    }
  };

  return (tenant, task, events, origin) => {
    const key = `${tenant}\u0000${task.id}`;
    const next = (chains.get(key) ?? Promise.resolve())
      .then(() => deliver(tenant, task, events, origin))
      .catch((e: unknown) => report(e, origin));
    chains.set(key, next);
    void next.then(() => {
      if (chains.get(key) === next) chains.delete(key);
    });
  };
}

/** An event's body in a payload's form; undefined, reported, when the payload function fails. */
function bodyOf(
  payload: PushPayload,
  event: StreamResponse,
  task: Task,
  report: (error: unknown) => void,
): string | undefined {
  try {
    return JSON.stringify(payload(event, task));
  } catch (e) {
    report(e);
    return undefined;
  }
}
