/**
 * The ListTasks index of one tenant: each task's key (sorted-keys.ts) sits in
 * four ordered sets, so every combination of the equality filters has one
 * set holding exactly its matches, in list order:
 *
 *   all              no filter
 *   context          contextId
 *   state            status
 *   context + state  both
 *
 * statusAfterMs keeps a prefix of that set (the order is newest first), so a
 * page is a binary search for the prefix's end, one for the page token's
 * position, and a slice; totalSize is the prefix's length. Nothing is sorted
 * or scanned per call. The price: four set entries per task, and two small
 * sets per (context, state) pair in use; empty sets are dropped. A commit
 * moves a task only in the sets where its key or its set changed (a new
 * state within the same microsecond leaves `all` and `context` as they are).
 */
import { type IndexKey, SortedKeys } from "./sorted-keys.js";

/** The filters of a query that pick the set. */
export interface IndexFilter {
  /** "" : any. */
  readonly contextId: string;
  /** 0 : any. */
  readonly state: number;
}

/** Where one task is indexed: its key, context and state. */
export interface IndexedTask extends IndexFilter {
  readonly key: IndexKey;
}

function pairKey(contextId: string, state: number): string {
  return `${state}:${contextId}`;
}

function addTo<K>(sets: Map<K, SortedKeys>, k: K, key: IndexKey): void {
  const set = sets.get(k) ?? new SortedKeys();
  sets.set(k, set);
  set.insert(key);
}

function removeFrom<K>(sets: Map<K, SortedKeys>, k: K, key: IndexKey): void {
  const set = sets.get(k);
  if (!set) return;
  set.remove(key);
  if (set.size === 0) sets.delete(k);
}

function moveIn<K>(sets: Map<K, SortedKeys>, a: K, b: K, sameKey: boolean, from: IndexKey, to: IndexKey): void {
  if (a === b && sameKey) return;
  removeFrom(sets, a, from);
  addTo(sets, b, to);
}

export class TenantIndex {
  private readonly all = new SortedKeys();
  private readonly byContext = new Map<string, SortedKeys>();
  private readonly byState = new Map<number, SortedKeys>();
  private readonly byPair = new Map<string, SortedKeys>();

  get size(): number {
    return this.all.size;
  }

  add(t: IndexedTask): void {
    this.all.insert(t.key);
    addTo(this.byContext, t.contextId, t.key);
    addTo(this.byState, t.state, t.key);
    addTo(this.byPair, pairKey(t.contextId, t.state), t.key);
  }

  remove(t: IndexedTask): void {
    this.all.remove(t.key);
    removeFrom(this.byContext, t.contextId, t.key);
    removeFrom(this.byState, t.state, t.key);
    removeFrom(this.byPair, pairKey(t.contextId, t.state), t.key);
  }

  /** Re-indexes a task from `from` to `to` (same id), touching only the sets where something changed. */
  move(from: IndexedTask, to: IndexedTask): void {
    const sameKey = from.key.micros === to.key.micros;
    if (!sameKey) {
      this.all.remove(from.key);
      this.all.insert(to.key);
    }
    moveIn(this.byContext, from.contextId, to.contextId, sameKey, from.key, to.key);
    moveIn(this.byState, from.state, to.state, sameKey, from.key, to.key);
    moveIn(
      this.byPair,
      pairKey(from.contextId, from.state),
      pairKey(to.contextId, to.state),
      sameKey,
      from.key,
      to.key,
    );
  }

  /** The set holding exactly the tasks that pass `filter`, or undefined when none does. */
  select(filter: IndexFilter): SortedKeys | undefined {
    if (filter.contextId && filter.state) return this.byPair.get(pairKey(filter.contextId, filter.state));
    if (filter.contextId) return this.byContext.get(filter.contextId);
    if (filter.state) return this.byState.get(filter.state);
    return this.all;
  }
}
