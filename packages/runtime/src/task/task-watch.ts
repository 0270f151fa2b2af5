/**
 * One listener on a task's events, as a pull queue: what streams, blocking
 * sends and subscribers read. The rule that loses nothing and repeats
 * nothing: listen first (watchTask resolves once the store listens), then
 * read the task, then take only the events whose version is above the
 * version read (taskEvents' `afterVersion`).
 *
 *   next()      the next event in version order; undefined once stopped, once
 *               the caller's signal aborts, or once `endAt(v)` was called and
 *               an event of version v or later has been taken
 *   bounded     at most MAX_BUFFERED events wait unread; past that the watch
 *               fails (a reader that never reads cannot hold memory forever)
 *
 * A stream of task events ends after the event that puts the task in a
 * terminal or interrupted state (input-required, auth-required).
 */
import { INTERRUPTED_STATES, TERMINAL_STATES, type StreamResponse, type TaskState } from "./a2a-types.js";
import type { TaskEvent, TaskStore } from "./store.js";

/** How many events may wait unread before the watch fails. */
export const MAX_BUFFERED = 10_000;

export interface TaskWatch {
  next(signal?: AbortSignal): Promise<TaskEvent | undefined>;
  /** Ends the watch after the event of this version (or at once if it was taken already). */
  endAt(version: number): void;
  stop(): Promise<void>;
}

interface WatchState {
  readonly buffer: TaskEvent[];
  wake: (() => void) | undefined;
  taken: number;
  end: number | undefined;
  stopped: boolean;
  failure: Error | undefined;
}

export async function watchTask(store: TaskStore, tenant: string, taskId: string): Promise<TaskWatch> {
  const s: WatchState = { buffer: [], wake: undefined, taken: 0, end: undefined, stopped: false, failure: undefined };
  const poke = () => {
    const wake = s.wake;
    s.wake = undefined;
    wake?.();
  };
  const unsubscribe = await store.subscribe(tenant, taskId, (event) => {
    if (s.stopped || s.failure) return;
    if (s.buffer.length >= MAX_BUFFERED) {
      s.failure = new Error(`task ${taskId}: a reader fell ${MAX_BUFFERED} events behind; its stream was ended`);
    } else s.buffer.push(event);
    poke();
  });
  const finished = () => s.stopped || (s.end !== undefined && s.taken >= s.end);
  return {
    async next(signal) {
      while (s.buffer.length === 0) {
        if (s.failure) throw s.failure;
        if (finished() || signal?.aborted) return undefined;
        await new Promise<void>((resolve) => {
          s.wake = resolve;
          signal?.addEventListener("abort", poke, { once: true });
        });
        signal?.removeEventListener("abort", poke);
      }
      if (finished()) return undefined;
      const event = s.buffer.shift()!;
      s.taken = Math.max(s.taken, event.version);
      return event;
    },
    endAt(version) {
      s.end = version;
      poke();
    },
    async stop() {
      if (s.stopped) return;
      s.stopped = true;
      s.buffer.length = 0;
      poke();
      await unsubscribe();
    },
  };
}

/** The task state an event sets, if it sets one. */
export function stateOf(event: StreamResponse): TaskState | undefined {
  const p = event.payload;
  if (p.case === "statusUpdate") return p.value.status?.state;
  if (p.case === "task") return p.value.status?.state;
  return undefined;
}

/** Whether a stream ends after this event: it puts the task in a terminal or interrupted state. */
export function endsStream(event: StreamResponse): boolean {
  const state = stateOf(event);
  return state !== undefined && (TERMINAL_STATES.has(state) || INTERRUPTED_STATES.has(state));
}

/** The events above `afterVersion`, up to and including the one that ends the stream. */
export async function* taskEvents(
  watch: TaskWatch,
  afterVersion: number,
  signal: AbortSignal,
): AsyncGenerator<StreamResponse> {
  for (let e = await watch.next(signal); e !== undefined; e = await watch.next(signal)) {
    if (e.version <= afterVersion) continue;
    yield e.event;
    if (endsStream(e.event)) return;
  }
}
