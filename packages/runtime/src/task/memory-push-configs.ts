/**
 * The in-memory store's push configs: per (tenant, task) a Map by config id,
 * holding copies. Listing orders a task's configs by id (code-unit order) and
 * pages by the last id (page-token.ts); a task has few configs (at most
 * maxPerTask), so the sort per call is over that handful. The store drops a
 * task's configs with the task.
 */
import { A2AError } from "../core/a2a-error.js";
import { deepCopy } from "./copy.js";
import { decodeConfigToken, encodeConfigToken, scopeOf } from "./page-token.js";
import type { PushConfigPage, StoredPushConfig } from "./store.js";
import { tooManyPushConfigs } from "./store-refusals.js";
import { taskKey } from "./task-key.js";

const LIST = "ListTaskPushNotificationConfigs";

export class PushConfigTable {
  private readonly byTask = new Map<string, Map<string, StoredPushConfig>>();
  private total = 0;

  constructor(private readonly maxPerTask: number) {}

  /** How many configs are kept, over all tasks. */
  get size(): number {
    return this.total;
  }

  put(tenant: string, stored: StoredPushConfig): void {
    const { taskId, id } = stored.config;
    const key = taskKey(tenant, taskId);
    const configs = this.byTask.get(key) ?? new Map<string, StoredPushConfig>();
    if (!configs.has(id) && configs.size >= this.maxPerTask) {
      throw tooManyPushConfigs(id, taskId, configs.size, this.maxPerTask);
    }
    if (!configs.has(id)) this.total++;
    configs.set(id, deepCopy(stored));
    this.byTask.set(key, configs);
  }

  /** The config as kept (no copy: for its size), if any. */
  peek(tenant: string, taskId: string, id: string): StoredPushConfig | undefined {
    return this.byTask.get(taskKey(tenant, taskId))?.get(id);
  }

  get(tenant: string, taskId: string, id: string): StoredPushConfig | undefined {
    const stored = this.byTask.get(taskKey(tenant, taskId))?.get(id);
    return stored ? deepCopy(stored) : undefined;
  }

  /** The task's configs; with `shown` false none (another owner's task, memory-store.ts), after the same checks. */
  list(tenant: string, taskId: string, pageSize: number, pageToken: string, shown = true): PushConfigPage {
    if (!Number.isSafeInteger(pageSize) || pageSize < 0) {
      throw new A2AError("InvalidParamsError", `${LIST}: pageSize ${pageSize} is not 0 (all) or a positive integer`);
    }
    const scope = scopeOf(["p", tenant, taskId]);
    const after = pageToken ? decodeConfigToken(LIST, pageToken, scope) : undefined;
    const ids = [...((shown && this.byTask.get(taskKey(tenant, taskId))?.keys()) || [])]
      .filter((id) => after === undefined || id > after)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const page = pageSize === 0 ? ids : ids.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      configs: page.map((id) => this.get(tenant, taskId, id) as StoredPushConfig),
      nextPageToken: page.length < ids.length && last !== undefined ? encodeConfigToken(scope, last) : "",
    };
  }

  delete(tenant: string, taskId: string, id: string): boolean {
    const key = taskKey(tenant, taskId);
    const configs = this.byTask.get(key);
    if (!configs?.delete(id)) return false;
    this.total--;
    if (configs.size === 0) this.byTask.delete(key);
    return true;
  }

  /** Drops every config of the task (it was evicted). */
  dropTask(tenant: string, taskId: string): void {
    const key = taskKey(tenant, taskId);
    this.total -= this.byTask.get(key)?.size ?? 0;
    this.byTask.delete(key);
  }

  clear(): void {
    this.byTask.clear();
    this.total = 0;
  }
}
