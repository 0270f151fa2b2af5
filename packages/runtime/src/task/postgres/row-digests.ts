/**
 * What this store instance last wrote of each task's history and artifact
 * rows: their digests, with the version they belong to. A commit whose
 * expected version is the remembered one knows exactly what is stored (the
 * stored rows of a version are those of the one commit that made it, and a
 * commit that holds names that version), so it sends only the rows that
 * changed; any other commit sends every row and lets the statement compare
 * digests (commit.ts). Wrong or missing entries so cost bytes, never
 * correctness.
 *
 * Bounded: at most MAX_TASKS tasks, the oldest written dropped first.
 */
import { FifoMap } from "../../core/fifo-map.js";
import { taskKey } from "../task-key.js";

/** A task's stored rows: history digests by seq (hex), and "position:digest" by artifact id. */
export interface TaskDigests {
  readonly history: string[];
  readonly artifacts: Map<string, string>;
}

/** How many tasks' digests are kept. */
const MAX_TASKS = 4096;

export class RowDigests {
  private readonly byTask = new FifoMap<string, { readonly version: number; readonly digests: TaskDigests }>();

  /** The digests stored at `version`, when this instance wrote that version. */
  known(tenant: string, taskId: string, version: number): TaskDigests | undefined {
    const entry = this.byTask.get(taskKey(tenant, taskId));
    return entry?.version === version ? entry.digests : undefined;
  }

  remember(tenant: string, taskId: string, version: number, digests: TaskDigests): void {
    this.byTask.set(taskKey(tenant, taskId), { version, digests });
    if (this.byTask.size > MAX_TASKS) {
      const oldest = this.byTask.oldest();
      if (oldest !== undefined) this.byTask.delete(oldest.key);
    }
  }

  forget(tenant: string, taskId: string): void {
    this.byTask.delete(taskKey(tenant, taskId));
  }
}
