/**
 * One listener on a task's events, as a pull queue: what streams, blocking
 * sends and subscribers read. The rule that loses nothing and repeats
 * nothing: listen first (watchTask resolves once the store listens,
 * task-hub.ts), then
 * read the task, then take only the events whose version is above the
 * version read (eventReader's `afterVersion`).
 *
 *   next()      the next event in version order; undefined once stopped, once
 *               the caller's signal aborts, or once `endAt(v)` was called and
 *               the events of version v (one commit may carry several), or
 *               a later one, have been taken
 *   bounded     at most MAX_BUFFERED events, and about MAX_BUFFERED_BYTES of
 *               them (estimated as the memory store does, memory-size.ts, once
 *               MEASURED_FROM wait), wait unread; past either the watch fails
 *               (a reader that never reads cannot hold memory without bound)
 *   ends        a watch made to keep "ends" (a blocking send, which waits for
 *               the task to stop and reads it then) keeps only the events that
 *               end a stream and passes the others by: a burst of events
 *               cannot make it fall behind, and it holds no copies of them
 *
 * A stream of task events ends after the event that puts the task in a
 * terminal or interrupted state (input-required, auth-required).
 */
import { INTERRUPTED_STATES, TERMINAL_STATES, type StreamResponse, type TaskState } from "./a2a-types.js";
import { deepCopy } from "./copy.js";
import { heapSizeOf } from "./memory-size.js";
import type { TaskEvent } from "./store.js";
import type { TaskHub } from "./task-hub.js";

/** How many events may wait unread before the watch fails. */
export const MAX_BUFFERED = 10_000;
/** About how many bytes of events may wait unread before the watch fails. */
export const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/** How many events wait unread before each one that comes is measured: a reader keeping up pays nothing. */
const MEASURED_FROM = 8;

/** What a watch keeps for its reader: every event, or only those that end a stream (see the header). */
export type WatchKeeps = "events" | "ends";

export interface TaskWatch {
  next(signal?: AbortSignal): Promise<TaskEvent | undefined>;
  /** The highest version taken, or passed by (keeps "ends"): where a watch ended by `endAt` stands. */
  seen(): number;
  /** Ends the watch after the event of this version (or at once if it was taken already). */
  endAt(version: number): void;
  stop(): Promise<void>;
}

interface WatchState {
  readonly buffer: TaskEvent[];
  /** The estimated size of each buffered event, 0 for one that came while few waited. */
  readonly sizes: number[];
  /** The sum of `sizes`. */
  bytes: number;
  wake: (() => void) | undefined;
  /** The version of the last event taken. */
  taken: number;
  /** The highest version of an event passed by (keeps "ends"), whatever waits unread. */
  passed: number;
  end: number | undefined;
  stopped: boolean;
  failure: Error | undefined;
  /** The signal `poke` listens to, from the last next() that waited. */
  signal: AbortSignal | undefined;
}

function newWatchState(): WatchState {
  return {
    buffer: [],
    sizes: [],
    bytes: 0,
    wake: undefined,
    taken: 0,
    passed: 0,
    end: undefined,
    stopped: false,
    failure: undefined,
    signal: undefined,
  };
}

/** Why the watch fails when the event would pass a bound (see the header), or undefined when it fits. */
function overflow(s: WatchState, event: TaskEvent, taskId: string): Error | undefined {
  const behind = (what: string) => new Error(`task ${taskId}: a reader fell ${what} behind; its stream was ended`);
  if (s.buffer.length >= MAX_BUFFERED) return behind(`${MAX_BUFFERED} events`);
  const size = s.buffer.length >= MEASURED_FROM ? heapSizeOf(event.event) : 0;
  if (s.bytes + size > MAX_BUFFERED_BYTES) return behind(`${MAX_BUFFERED_BYTES} bytes of events`);
  s.sizes.push(size);
  s.bytes += size;
  return undefined;
}

/** What the watch does with each event that comes: buffers it within the bounds, or passes it by (see the header). */
function taker(s: WatchState, taskId: string, keeps: WatchKeeps): (event: TaskEvent) => void {
  const keep = (event: TaskEvent) => {
    s.failure = overflow(s, event, taskId);
    if (s.failure === undefined) s.buffer.push(event);
  };
  if (keeps === "events") return keep;
  return (event) => {
    if (endsStream(event.event)) keep({ ...event, event: deepCopy(event.event) });
    else s.passed = Math.max(s.passed, event.version);
  };
}

/**
 * Watches the task; `from` as TaskStore.subscribe's (0: a task the caller is about to create); `keeps`: what the
 * watch keeps for its reader (see the header).
 */
export async function watchTask(
  hub: TaskHub,
  tenant: string,
  taskId: string,
  from?: number,
  keeps: WatchKeeps = "events",
): Promise<TaskWatch> {
  const s = newWatchState();
  const poke = () => {
    const wake = s.wake;
    s.wake = undefined;
    wake?.();
  };
  const take = taker(s, taskId, keeps);
  // "keeps": the events go on to a caller, so each watch holds copies of its own. A watch of the ends only reads
  // the others, and copies what it keeps.
  const use = keeps === "events" ? "keeps" : "reads";
  const unsubscribe = await hub.listen(
    tenant,
    taskId,
    use,
    (event) => {
      if (s.stopped || s.failure) return;
      take(event);
      poke();
    },
    from,
  );
  // Past the end: an event of a later version was taken or passed by, or the end version's last one (a commit may
  // carry several), and none at or below the end waits unread.
  const seen = () => Math.max(s.taken, s.passed);
  const finished = () =>
    s.stopped || (s.end !== undefined && seen() >= s.end && !((s.buffer[0]?.version ?? Infinity) <= s.end));
  /** Listens to the signal of the waiting reader (once per signal, not once per wait). */
  const listenTo = (signal: AbortSignal | undefined) => {
    if (signal === s.signal) return;
    s.signal?.removeEventListener("abort", poke);
    s.signal = signal;
    signal?.addEventListener("abort", poke);
  };
  return {
    async next(signal) {
      while (s.buffer.length === 0) {
        if (s.failure) throw s.failure;
        if (finished() || signal?.aborted) return undefined;
        listenTo(signal);
        await new Promise<void>((resolve) => {
          s.wake = resolve;
        });
      }
      if (finished()) return undefined;
      const event = s.buffer.shift()!;
      s.bytes -= s.sizes.shift()!;
      s.taken = Math.max(s.taken, event.version);
      return event;
    },
    seen,
    endAt(version) {
      s.end = version;
      poke();
    },
    async stop() {
      if (s.stopped) return;
      s.stopped = true;
      s.buffer.length = 0;
      s.sizes.length = 0;
      s.bytes = 0;
      listenTo(undefined);
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

/** Whether a task in this state ends the streams of its events: a terminal or interrupted state. */
export function endsStreams(state: TaskState | undefined): boolean {
  return state !== undefined && (TERMINAL_STATES.has(state) || INTERRUPTED_STATES.has(state));
}

/** Whether a stream ends after this event: it puts the task in a terminal or interrupted state. */
export function endsStream(event: StreamResponse): boolean {
  return endsStreams(stateOf(event));
}

/** How far a reader got: the version of the last event it returned (its afterVersion before the first). */
export interface ReadProgress {
  version: number;
}

/**
 * A reader of the events above `afterVersion`, up to and including the one that ends the stream; then undefined.
 * `progress`, when given, follows the version of each event returned.
 */
export function eventReader(
  watch: TaskWatch,
  afterVersion: number,
  signal: AbortSignal,
  progress: ReadProgress = { version: afterVersion },
): () => Promise<StreamResponse | undefined> {
  let ended = false;
  return async () => {
    while (!ended) {
      const e = await watch.next(signal);
      if (e === undefined) break;
      if (e.version <= afterVersion) continue;
      progress.version = e.version;
      ended = endsStream(e.event);
      return e.event;
    }
    ended = true;
    return undefined;
  };
}
