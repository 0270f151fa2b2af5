/**
 * A TaskStore kept in this process's memory: for one instance (tests, a
 * single server). Several instances must share the PostgreSQL store instead.
 *
 *   tasks        Map by (tenant, id) of a private copy and its version; commit
 *                compares the version and writes a copy, get returns a copy
 *   events       delivered synchronously, in commit order, to the listeners of
 *                the task, after the commit holds, each with the new version
 *   listing      filter, then newest status first (ties by id), keyset paged
 *   push configs Map by (tenant, task) of Map by id
 */
import { A2AError } from "../a2a-error.js";
import type { Task } from "./a2a-types.js";
import type {
  PushConfigPage,
  StoredPushConfig,
  StoredTask,
  TaskCommit,
  TaskEvent,
  TaskPage,
  TaskQuery,
  TaskStore,
} from "./store.js";

interface Slot {
  task: Task;
  version: number;
}

type Listener = (event: TaskEvent) => void;

function keyOf(tenant: string, taskId: string): string {
  return `${tenant.length}:${tenant}${taskId}`;
}

function statusMicros(task: Task): number {
  const ts = task.status?.timestamp;
  return ts ? Number(ts.seconds) * 1_000_000 + Math.floor(ts.nanos / 1000) : 0;
}

function compareTasks(a: Task, b: Task): number {
  const d = statusMicros(b) - statusMicros(a);
  return d !== 0 ? d : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function badToken(where: string): A2AError {
  return new A2AError("InvalidParamsError", `${where}: pageToken is not one this store returned`);
}

/** Creates an empty in-memory TaskStore. */
export function createMemoryTaskStore(): TaskStore {
  const tasks = new Map<string, Slot>();
  const listeners = new Map<string, Set<Listener>>();
  const pushConfigs = new Map<string, Map<string, StoredPushConfig>>();

  function publish(tenant: string, taskId: string, version: number, events: readonly TaskCommit["events"][number][]) {
    const set = listeners.get(keyOf(tenant, taskId));
    if (!set) return;
    for (const event of events) {
      for (const listener of [...set]) {
        try {
          listener({ tenant, taskId, version, event: structuredClone(event) });
        } catch (e) {
          console.error(`memory task store: a subscriber of task ${taskId} threw`, e);
        }
      }
    }
  }

  return {
    async get(tenant: string, taskId: string): Promise<StoredTask | undefined> {
      const slot = tasks.get(keyOf(tenant, taskId));
      return slot ? { task: structuredClone(slot.task), version: slot.version } : undefined;
    },
    async commit(tenant: string, commit: TaskCommit): Promise<number | undefined> {
      const key = keyOf(tenant, commit.task.id);
      const slot = tasks.get(key);
      if ((slot?.version ?? 0) !== commit.expectedVersion) return undefined;
      const version = commit.expectedVersion + 1;
      tasks.set(key, { task: structuredClone(commit.task), version });
      publish(tenant, commit.task.id, version, commit.events);
      return version;
    },
    async list(tenant: string, query: TaskQuery): Promise<TaskPage> {
      const prefix = keyOf(tenant, "");
      const matches: Task[] = [];
      for (const [key, slot] of tasks) {
        if (!key.startsWith(prefix)) continue;
        const t = slot.task;
        if (query.contextId && t.contextId !== query.contextId) continue;
        if (query.status && t.status?.state !== query.status) continue;
        if (query.statusAfterMs !== undefined && statusMicros(t) <= query.statusAfterMs * 1000) continue;
        matches.push(t);
      }
      matches.sort(compareTasks);
      let start = 0;
      if (query.pageToken) {
        const i = matches.findIndex((t) => t.id === query.pageToken);
        if (i < 0) throw badToken("ListTasks");
        start = i + 1;
      }
      const page = matches.slice(start, start + query.pageSize);
      const more = start + query.pageSize < matches.length;
      return {
        tasks: page.map((t) => structuredClone(t)),
        nextPageToken: more ? (page[page.length - 1]?.id ?? "") : "",
        totalSize: matches.length,
      };
    },
    async subscribe(tenant: string, taskId: string, listener: Listener): Promise<() => Promise<void>> {
      const key = keyOf(tenant, taskId);
      const set = listeners.get(key) ?? new Set<Listener>();
      listeners.set(key, set);
      const mine: Listener = (e) => listener(e);
      set.add(mine);
      return async () => {
        const current = listeners.get(key);
        current?.delete(mine);
        if (current?.size === 0) listeners.delete(key);
      };
    },
    async putPushConfig(tenant: string, stored: StoredPushConfig): Promise<void> {
      const key = keyOf(tenant, stored.config.taskId);
      const configs = pushConfigs.get(key) ?? new Map<string, StoredPushConfig>();
      pushConfigs.set(key, configs);
      configs.set(stored.config.id, structuredClone(stored));
    },
    async getPushConfig(tenant: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
      const stored = pushConfigs.get(keyOf(tenant, taskId))?.get(id);
      return stored ? structuredClone(stored) : undefined;
    },
    async listPushConfigs(tenant: string, taskId: string, pageSize: number, pageToken: string) {
      const all = [...(pushConfigs.get(keyOf(tenant, taskId))?.values() ?? [])].sort((a, b) =>
        a.config.id < b.config.id ? -1 : a.config.id > b.config.id ? 1 : 0,
      );
      let start = 0;
      if (pageToken) {
        const i = all.findIndex((c) => c.config.id === pageToken);
        if (i < 0) throw badToken("ListTaskPushNotificationConfigs");
        start = i + 1;
      }
      const size = pageSize > 0 ? pageSize : all.length;
      const page = all.slice(start, start + size);
      const more = start + size < all.length;
      const result: PushConfigPage = {
        configs: page.map((c) => structuredClone(c)),
        nextPageToken: more ? (page[page.length - 1]?.config.id ?? "") : "",
      };
      return result;
    },
    async deletePushConfig(tenant: string, taskId: string, id: string): Promise<boolean> {
      const key = keyOf(tenant, taskId);
      const configs = pushConfigs.get(key);
      const had = configs?.delete(id) ?? false;
      if (configs?.size === 0) pushConfigs.delete(key);
      return had;
    },
    async close(): Promise<void> {
      listeners.clear();
    },
  };
}
