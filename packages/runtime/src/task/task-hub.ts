/**
 * The task listeners of one createTaskHandler: one store subscription per
 * task, however many calls of this handler listen to it (a stream, a
 * blocking send, subscribers, the run that watches for its cancel), fanned
 * out here.
 *
 *   listening  listen() resolves once the store listens (the first listener
 *              of a task subscribes; the next ones wait for that); the last
 *              listener to leave unsubscribes. A listener may so also get
 *              events of versions it did not wait for; every reader skips
 *              versions at or below the one it read (task-watch.ts)
 *   order      the store's: each event goes to the task's listeners, in the
 *              order they came, before the next event
 *   copies     the store hands the hub its own copy of each event (store.ts);
 *              a reader (it looks, keeps nothing, changes nothing) gets that
 *              copy, as does the first keeper (it hands the event on, to a
 *              caller); every other keeper gets a copy of its own. Readers are
 *              called first, so what they see is as committed
 *   failures   a throwing listener does not keep the event from the others;
 *              the first throw goes on to the store, which reports it
 */
import { deepCopy } from "./copy.js";
import type { TaskEvent, TaskStore } from "./store.js";
import { taskKey } from "./task-key.js";

export type HubListener = (event: TaskEvent) => void;

/** How a listener uses the events: "reads" looks at them during the call only; "keeps" holds or hands them on. */
export type ListenerUse = "reads" | "keeps";

interface Member {
  readonly listener: HubListener;
  readonly use: ListenerUse;
}

interface Topic {
  readonly members: Set<Member>;
  readonly ready: Promise<() => Promise<void>>;
}

export class TaskHub {
  private readonly topics = new Map<string, Topic>();

  constructor(private readonly store: TaskStore) {}

  /**
   * Calls `listener` with each event of the task committed from now on; the returned function stops it. `from`:
   * as TaskStore.subscribe's, used by the first listener of the task.
   */
  async listen(
    tenant: string,
    taskId: string,
    use: ListenerUse,
    listener: HubListener,
    from?: number,
  ): Promise<() => Promise<void>> {
    const key = taskKey(tenant, taskId);
    let topic = this.topics.get(key);
    if (!topic) {
      const members = new Set<Member>();
      topic = { members, ready: this.store.subscribe(tenant, taskId, (e) => fanOut(members, e), from) };
      this.topics.set(key, topic);
    }
    const member: Member = { listener, use };
    topic.members.add(member);
    const joined = topic;
    let stop: () => Promise<void>;
    try {
      stop = await joined.ready;
    } catch (error) {
      // The store could not listen: the next listen() tries again.
      joined.members.delete(member);
      if (this.topics.get(key) === joined) this.topics.delete(key);
      throw error;
    }
    return async () => {
      if (!joined.members.delete(member) || joined.members.size > 0) return;
      if (this.topics.get(key) === joined) this.topics.delete(key);
      await stop();
    };
  }
}

function fanOut(members: ReadonlySet<Member>, event: TaskEvent): void {
  let failure: { error: unknown } | undefined;
  const call = (member: Member, e: TaskEvent) => {
    try {
      member.listener(e);
    } catch (error) {
      failure ??= { error };
    }
  };
  const snapshot = [...members];
  for (const m of snapshot) if (m.use === "reads") call(m, event);
  let shared = true;
  for (const m of snapshot) {
    if (m.use !== "keeps" || !members.has(m)) continue;
    call(m, shared ? event : { ...event, event: deepCopy(event.event) });
    shared = false;
  }
  if (failure) throw failure.error;
}
