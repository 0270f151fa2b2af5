/**
 * The in-memory store's subscriptions: listeners per (tenant, task), called
 * synchronously with each committed event, in commit order.
 *
 *   order       deliveries go through one queue; a listener that commits
 *               (or otherwise publishes) while being called queues its events
 *               behind the ones being delivered, so every listener sees
 *               versions in order, never a later commit before an earlier one
 *   membership  the listeners of a commit are fixed when it is published; one
 *               removed before its turn is skipped
 *   copies      each listener gets its own copy of the event, taken when the
 *               commit publishes it
 *   failures    a listener that throws is reported to onListenerError (the
 *               tenant, task and version) and the others still get the event;
 *               the commit itself has held and resolves all the same
 */
import type { StreamResponse } from "./a2a-types.js";
import { deepCopy } from "./copy.js";
import type { TaskEvent } from "./store.js";
import { taskKey } from "./task-key.js";

export type TaskListener = (event: TaskEvent) => void;

/** Called with what a listener threw and the event it was given. */
export type ListenerErrorHandler = (error: unknown, event: TaskEvent) => void;

export const logListenerError: ListenerErrorHandler = (error, event) => {
  const where = `task ${event.taskId} (tenant "${event.tenant}") at version ${event.version}`;
  console.error(`memory task store: a subscriber of ${where} threw:`, error);
};

interface Delivery {
  readonly set: Set<TaskListener>;
  readonly listener: TaskListener;
  readonly event: TaskEvent;
}

export class TaskListeners {
  private readonly byTask = new Map<string, Set<TaskListener>>();
  private readonly queue: Delivery[] = [];
  private draining = false;

  constructor(private readonly onError: ListenerErrorHandler) {}

  /** How many tasks have listeners. */
  get taskCount(): number {
    return this.byTask.size;
  }

  /** Whether the task has a listener. */
  has(tenant: string, taskId: string): boolean {
    return this.byTask.has(taskKey(tenant, taskId));
  }

  /** Adds a listener; the returned function removes it (again: nothing). */
  add(tenant: string, taskId: string, listener: TaskListener): () => void {
    const key = taskKey(tenant, taskId);
    const set = this.byTask.get(key) ?? new Set<TaskListener>();
    this.byTask.set(key, set);
    // A wrapper per call, so the same function subscribed twice is two subscriptions.
    const own: TaskListener = (e) => listener(e);
    set.add(own);
    return () => {
      set.delete(own);
      if (set.size === 0 && this.byTask.get(key) === set) this.byTask.delete(key);
    };
  }

  /** Hands each event, with `version`, to the task's current listeners, after any deliveries under way. */
  publish(tenant: string, taskId: string, version: number, events: readonly StreamResponse[]): void {
    const set = this.byTask.get(taskKey(tenant, taskId));
    if (!set || events.length === 0) return;
    if (!this.draining && set.size === 1) {
      // One listener and nothing under way (the usual case): hand the events over directly, in order; what it
      // publishes meanwhile queues behind them, as drain() does.
      this.draining = true;
      try {
        const listener = set.values().next().value as TaskListener;
        for (const event of events) {
          if (!set.has(listener)) break;
          this.call(listener, { tenant, taskId, version, event: deepCopy(event) });
        }
      } finally {
        this.draining = false;
      }
      this.drain();
      return;
    }
    const listeners = [...set];
    for (const event of events) {
      for (const listener of listeners) {
        this.queue.push({ set, listener, event: { tenant, taskId, version, event: deepCopy(event) } });
      }
    }
    this.drain();
  }

  private call(listener: TaskListener, event: TaskEvent): void {
    try {
      listener(event);
    } catch (error) {
      this.report(error, event);
    }
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let d = this.queue.shift(); d; d = this.queue.shift()) {
        if (!d.set.has(d.listener)) continue;
        this.call(d.listener, d.event);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Tells onError; a throwing onError is ignored, since the commit has already held. */
  private report(error: unknown, event: TaskEvent): void {
    try {
      this.onError(error, event);
    } catch {
      // Nothing is left to tell.
    }
  }

  /** Removes every listener of the task (it was evicted). */
  dropTask(tenant: string, taskId: string): void {
    const key = taskKey(tenant, taskId);
    this.byTask.get(key)?.clear();
    this.byTask.delete(key);
  }

  clear(): void {
    for (const set of this.byTask.values()) set.clear();
    this.byTask.clear();
    this.queue.length = 0;
  }
}
