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
 * sets per (context, state) pair in use; empty sets are dropped, and a set
 * of one key is that key alone until a second one comes. A commit
 * moves a task only in the sets where its key or its set changed (a new
 * state within the same microsecond leaves `all` and `context` as they are).
 *
 * Owners (OwnerIndexes): a tenant keeps one such index per task owner, so a
 * query scoped to an owner (store.ts) picks its set the same way, and
 * totalSize counts only that owner's tasks. A query for every owner reads
 * the owner's index when the tenant has one owner (a server without
 * authentication: owner ""); over several owners, it reads an index of all
 * of them, built from the owners' indexes by the first such query (one pass)
 * and kept up to date from then on, so tenants that never list across
 * owners never pay for it.
 */
import { compareKeys, type IndexKey, SortedKeys } from "./sorted-keys.js";

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

/** A set of the maps: one key on its own (most contexts hold one task), else the ordered set. */
type Entry = IndexKey | SortedKeys;

function addTo<K>(sets: Map<K, Entry>, k: K, key: IndexKey): void {
  const entry = sets.get(k);
  if (entry === undefined) sets.set(k, key);
  else if (entry instanceof SortedKeys) entry.insert(key);
  else {
    const set = new SortedKeys();
    set.insert(entry);
    set.insert(key);
    sets.set(k, set);
  }
}

function removeFrom<K>(sets: Map<K, Entry>, k: K, key: IndexKey): void {
  const entry = sets.get(k);
  if (entry === undefined) return;
  if (!(entry instanceof SortedKeys)) {
    if (compareKeys(entry, key) === 0) sets.delete(k);
    return;
  }
  entry.remove(key);
  if (entry.size === 0) sets.delete(k);
}

function setOf(entry: Entry | undefined): SortedKeys | undefined {
  if (entry === undefined || entry instanceof SortedKeys) return entry;
  const set = new SortedKeys();
  set.insert(entry);
  return set;
}

function moveIn<K>(sets: Map<K, Entry>, a: K, b: K, sameKey: boolean, from: IndexKey, to: IndexKey): void {
  if (a === b && sameKey) return;
  removeFrom(sets, a, from);
  addTo(sets, b, to);
}

export class TenantIndex {
  private readonly all = new SortedKeys();
  private readonly byContext = new Map<string, Entry>();
  private readonly byState = new Map<number, Entry>();
  private readonly byPair = new Map<string, Entry>();

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
    if (filter.contextId && filter.state) return setOf(this.byPair.get(pairKey(filter.contextId, filter.state)));
    if (filter.contextId) return setOf(this.byContext.get(filter.contextId));
    if (filter.state) return setOf(this.byState.get(filter.state));
    return this.all;
  }

  /** Every indexed task, read back from the (context, state) sets: each task sits in exactly one. */
  *tasks(): Generator<IndexedTask> {
    for (const [pair, entry] of this.byPair) {
      const colon = pair.indexOf(":");
      const state = Number(pair.slice(0, colon));
      const contextId = pair.slice(colon + 1);
      const keys = entry instanceof SortedKeys ? entry.slice(0, entry.size) : [entry];
      for (const key of keys) yield { key, contextId, state };
    }
  }
}

/** The ListTasks indexes of one tenant, one per owner, and the one over all owners when asked (see the header). */
export class OwnerIndexes {
  private readonly byOwner = new Map<string, TenantIndex>();
  /** Over every owner: made by the first query for all owners while there are several, then kept. */
  private everyOwner: TenantIndex | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(owner: string, t: IndexedTask): void {
    let index = this.byOwner.get(owner);
    if (!index) {
      index = new TenantIndex();
      this.byOwner.set(owner, index);
    }
    index.add(t);
    this.everyOwner?.add(t);
    this.count++;
  }

  remove(owner: string, t: IndexedTask): void {
    const index = this.byOwner.get(owner);
    if (!index) return;
    index.remove(t);
    if (index.size === 0) this.byOwner.delete(owner);
    this.everyOwner?.remove(t);
    this.count--;
    // One owner left: its own index answers queries for every owner.
    if (this.byOwner.size <= 1) this.everyOwner = undefined;
  }

  move(owner: string, from: IndexedTask, to: IndexedTask): void {
    this.byOwner.get(owner)?.move(from, to);
    this.everyOwner?.move(from, to);
  }

  /** The set of the owner's tasks (undefined: every owner's) that pass `filter`; undefined when none does. */
  select(owner: string | undefined, filter: IndexFilter): SortedKeys | undefined {
    if (owner !== undefined) return this.byOwner.get(owner)?.select(filter);
    if (this.byOwner.size <= 1) return this.byOwner.values().next().value?.select(filter);
    if (!this.everyOwner) {
      const every = new TenantIndex();
      for (const index of this.byOwner.values()) for (const t of index.tasks()) every.add(t);
      this.everyOwner = every;
    }
    return this.everyOwner.select(filter);
  }
}
