/**
 * A task store whose operations telemetry times (telemetry.ts storeOperation):
 * each call of get, commit, list, update, endTurn and the push-config
 * operations starts a measurement and ends it when its promise settles, with
 * the error it rejected with. subscribe and close pass through untimed (a
 * subscription lives as long as its listener). The store's answers and errors
 * pass through unchanged.
 */
import type { TaskStore } from "./store.js";
import type { TaskTelemetry } from "./telemetry.js";

/** `store` with each operation timed by `telemetry`. */
export function timedStore(store: TaskStore, telemetry: TaskTelemetry): TaskStore {
  const system = store.system ?? "custom";
  const timed = <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const end = telemetry.storeOperation(operation, system);
    let promise: Promise<T>;
    try {
      promise = run();
    } catch (error) {
      end(error);
      throw error;
    }
    return promise.then(
      (value) => {
        end();
        return value;
      },
      (error: unknown) => {
        end(error);
        throw error;
      },
    );
  };
  const update = store.update?.bind(store);
  return {
    system,
    get: (tenant, taskId, owner) => timed("get", () => store.get(tenant, taskId, owner)),
    commit: (tenant, commit) => timed("commit", () => store.commit(tenant, commit)),
    list: (tenant, query) => timed("list", () => store.list(tenant, query)),
    ...(update ? { update: (...args: Parameters<typeof update>) => timed("update", () => update(...args)) } : {}),
    subscribe: (tenant, taskId, listener, from) => store.subscribe(tenant, taskId, listener, from),
    endTurn: (tenant, taskId, turn) => timed("endTurn", () => store.endTurn(tenant, taskId, turn)),
    putPushConfig: (tenant, stored, owner) => timed("putPushConfig", () => store.putPushConfig(tenant, stored, owner)),
    getPushConfig: (tenant, taskId, id, owner) =>
      timed("getPushConfig", () => store.getPushConfig(tenant, taskId, id, owner)),
    listPushConfigs: (tenant, taskId, pageSize, pageToken, owner) =>
      timed("listPushConfigs", () => store.listPushConfigs(tenant, taskId, pageSize, pageToken, owner)),
    deletePushConfig: (tenant, taskId, id, owner) =>
      timed("deletePushConfig", () => store.deletePushConfig(tenant, taskId, id, owner)),
    close: () => store.close(),
  };
}
