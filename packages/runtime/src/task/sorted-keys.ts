/**
 * An ordered set of task keys for ListTasks: newest status first, ties by
 * task id (code-unit order), as a two-level structure, a list of sorted
 * blocks of at most BLOCK_MAX keys (a B-tree cut at height two):
 *
 *   find     binary search over the blocks' last keys, then inside the block
 *   insert   splice into one block (moves at most BLOCK_MAX entries), split a
 *            block that grows past BLOCK_MAX in two halves
 *   remove   splice out of one block; drop an empty block, merge a small one
 *            into its neighbour
 *   rank     keys before a block: a sum of the block lengths before it
 *
 * A flat sorted array moves up to n entries per insert (a new task sorts
 * first, so every insert moves all of them): with 100k keys, moving a key to
 * the front took 311 µs there against 12 µs here (bench/task-store.js). In
 * the memory store's steady state (each task created, moved twice, dropped
 * as the oldest, 10k tasks in four sets) BLOCK_MAX 128 took 6.8 µs per task
 * against 11.4 µs with 512, the splices being shorter; rank sums then add up
 * a few hundred block lengths at 100k keys, once per ListTasks call. Keys
 * are compared by (micros desc, id asc); one tenant's ids are unique, so
 * keys are too.
 */

/** Where a task sorts: its status timestamp in microseconds since the epoch, and its id. */
export interface IndexKey {
  readonly micros: number;
  readonly id: string;
}

/** Negative when `a` lists before `b`: newer status first, then smaller id. */
export function compareKeys(a: IndexKey, b: IndexKey): number {
  if (a.micros !== b.micros) return b.micros - a.micros;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const BLOCK_MAX = 128;
const BLOCK_MERGE = BLOCK_MAX / 4;

/** The index of the first entry of `block` for which `before` is false (`before` holds for a prefix). */
function firstNotBefore(block: readonly IndexKey[], before: (key: IndexKey) => boolean): number {
  let lo = 0;
  let hi = block.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(block[mid] as IndexKey)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class SortedKeys {
  private readonly blocks: IndexKey[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The block where keys for which `before` is false start (blocks.length when there is none). */
  private blockOf(before: (key: IndexKey) => boolean): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.blocks[mid] as IndexKey[];
      if (before(block[block.length - 1] as IndexKey)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(key: IndexKey): void {
    const before = (k: IndexKey) => compareKeys(k, key) < 0;
    if (this.blocks.length === 0) {
      this.blocks.push([key]);
      this.count = 1;
      return;
    }
    const b = Math.min(this.blockOf(before), this.blocks.length - 1);
    const block = this.blocks[b] as IndexKey[];
    block.splice(firstNotBefore(block, before), 0, key);
    this.count++;
    if (block.length > BLOCK_MAX) this.blocks.splice(b + 1, 0, block.splice(block.length >>> 1));
  }

  /** Removes the key equal to `key`; returns whether there was one. */
  remove(key: IndexKey): boolean {
    const before = (k: IndexKey) => compareKeys(k, key) < 0;
    const b = this.blockOf(before);
    const block = this.blocks[b];
    if (!block) return false;
    const i = firstNotBefore(block, before);
    const found = block[i];
    if (!found || compareKeys(found, key) !== 0) return false;
    block.splice(i, 1);
    this.count--;
    if (block.length === 0) this.blocks.splice(b, 1);
    else if (block.length < BLOCK_MERGE) this.mergeSmall(b);
    return true;
  }

  /** Merges block `b` into a neighbour when both fit in one block. */
  private mergeSmall(b: number): void {
    const block = this.blocks[b] as IndexKey[];
    const next = this.blocks[b + 1];
    if (next && block.length + next.length <= BLOCK_MAX) {
      block.push(...next);
      this.blocks.splice(b + 1, 1);
      return;
    }
    const previous = this.blocks[b - 1];
    if (previous && previous.length + block.length <= BLOCK_MAX) {
      previous.push(...block);
      this.blocks.splice(b, 1);
    }
  }

  /** How many keys come first and satisfy `before`, which must hold for a prefix of the order. */
  countBefore(before: (key: IndexKey) => boolean): number {
    const b = this.blockOf(before);
    let n = 0;
    for (let i = 0; i < b; i++) n += (this.blocks[i] as IndexKey[]).length;
    const block = this.blocks[b];
    return block ? n + firstNotBefore(block, before) : n;
  }

  /** The keys at positions start, start + 1, ... before `end` (exclusive). */
  slice(start: number, end: number): IndexKey[] {
    const out: IndexKey[] = [];
    let offset = 0;
    for (const block of this.blocks) {
      if (offset + block.length > start) {
        const from = Math.max(0, start - offset);
        const to = Math.min(block.length, end - offset);
        for (let i = from; i < to; i++) out.push(block[i] as IndexKey);
      }
      offset += block.length;
      if (offset >= end) break;
    }
    return out;
  }
}
