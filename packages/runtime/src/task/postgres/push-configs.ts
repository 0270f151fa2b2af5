/**
 * Push notification configs in push_configs, keyed (tenant, task_id, id),
 * the config as protobuf binary next to the protocol version of the call that
 * created it. Listing is by id, keyset-paged (page token: the last id).
 *
 * Owners: a config records its task's owner (read with the task's row); a
 * call on behalf of a caller names the owner it sees, one more condition of
 * each statement (`AND owner = $n`), so another owner's task has no configs
 * and costs what a missing one does.
 *
 * A put runs in one transaction that first locks the task's row (FOR NO KEY
 * UPDATE): a missing task (or another owner's) is TaskNotFoundError, and a new id beyond
 * maxPushConfigsPerTask configs is refused (../store-refusals.ts), counted
 * after the lock, so concurrent puts on one task never pass the bound
 * together. Puts are rare; the five statements cost nothing on the send path.
 */
import type pg from "pg";
import type { PushConfigPage, StoredPushConfig } from "../store.js";
import { pushConfigTaskMissing, tooManyPushConfigs } from "../store-refusals.js";
import type { StoreCodecs } from "./codec.js";
import { pushConfigPageToken, readPushConfigPageToken } from "./page-token.js";
import type { SqlNames } from "./sql-names.js";
import { inTransaction } from "./transaction.js";

interface ConfigRow {
  readonly id: string;
  readonly protocol_version: string;
  readonly owner: string;
  readonly config: Buffer;
}

/** The owner condition of a statement, its parameter numbered `n`; "" without an owner (every owner). */
function ownerIs(owner: string | undefined, n: number): string {
  return owner === undefined ? "" : ` AND owner = $${n}`;
}

/** The statement's parameters, with the owner last when there is one. */
function withOwner(params: unknown[], owner: string | undefined): unknown[] {
  return owner === undefined ? params : [...params, owner];
}

export class PushConfigTable {
  constructor(
    private readonly db: pg.Pool,
    private readonly names: SqlNames,
    private readonly codecs: StoreCodecs,
    private readonly maxPerTask: number,
  ) {}

  private stored(row: ConfigRow): StoredPushConfig {
    const config = this.codecs.pushConfig.decode(row.config);
    return { config, protocolVersion: row.protocol_version, owner: row.owner };
  }

  async put(tenant: string, stored: StoredPushConfig, owner: string | undefined): Promise<void> {
    const { config } = stored;
    const { q } = this.names;
    const where = `put of push config "${config.id}" of task "${config.taskId}" (tenant "${tenant}")`;
    await inTransaction(this.db, where, async (client) => {
      const task = await client.query<{ owner: string }>(
        `SELECT owner FROM ${q}.tasks WHERE tenant = $1 AND id = $2${ownerIs(owner, 3)} FOR NO KEY UPDATE`,
        withOwner([tenant, config.taskId], owner),
      );
      const taskOwner = task.rows[0]?.owner;
      if (taskOwner === undefined) throw pushConfigTaskMissing(config.id, config.taskId);
      const have = await client.query<{ n: number; replacing: boolean }>(
        `SELECT count(*)::integer AS n, coalesce(bool_or(id = $3), false) AS replacing
         FROM ${q}.push_configs WHERE tenant = $1 AND task_id = $2`,
        [tenant, config.taskId, config.id],
      );
      const { n = 0, replacing = false } = have.rows[0] ?? {};
      if (!replacing && n >= this.maxPerTask) throw tooManyPushConfigs(config.id, config.taskId, n, this.maxPerTask);
      await client.query(
        `INSERT INTO ${q}.push_configs (tenant, task_id, id, protocol_version, config, owner)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (tenant, task_id, id) DO UPDATE
           SET protocol_version = EXCLUDED.protocol_version, config = EXCLUDED.config, owner = EXCLUDED.owner,
             updated_at = now()`,
        [tenant, config.taskId, config.id, stored.protocolVersion, this.codecs.pushConfig.encode(config), taskOwner],
      );
    });
  }

  async get(
    tenant: string,
    taskId: string,
    id: string,
    owner: string | undefined,
  ): Promise<StoredPushConfig | undefined> {
    const result = await this.db.query<ConfigRow>(
      `SELECT id, protocol_version, config, owner FROM ${this.names.q}.push_configs
       WHERE tenant = $1 AND task_id = $2 AND id = $3${ownerIs(owner, 4)}`,
      withOwner([tenant, taskId, id], owner),
    );
    const row = result.rows[0];
    return row === undefined ? undefined : this.stored(row);
  }

  async list(
    tenant: string,
    taskId: string,
    page: { readonly pageSize: number; readonly pageToken: string },
    owner: string | undefined,
  ): Promise<PushConfigPage> {
    const { pageSize } = page;
    const scope = [tenant, taskId];
    const after = readPushConfigPageToken(page.pageToken, scope, "ListTaskPushNotificationConfigs");
    const limit = pageSize > 0 ? pageSize + 1 : null;
    const result = await this.db.query<ConfigRow>(
      `SELECT id, protocol_version, config, owner FROM ${this.names.q}.push_configs
       WHERE tenant = $1 AND task_id = $2 AND ($3::text IS NULL OR id > $3)${ownerIs(owner, 5)} ORDER BY id LIMIT $4`,
      withOwner([tenant, taskId, after ?? null, limit], owner),
    );
    const rows = pageSize > 0 ? result.rows.slice(0, pageSize) : result.rows;
    const last = rows[rows.length - 1];
    const more = result.rows.length > rows.length && last !== undefined;
    return {
      configs: rows.map((row) => this.stored(row)),
      nextPageToken: more ? pushConfigPageToken(last.id, scope) : "",
    };
  }

  async delete(tenant: string, taskId: string, id: string, owner: string | undefined): Promise<boolean> {
    const result = await this.db.query(
      `DELETE FROM ${this.names.q}.push_configs WHERE tenant = $1 AND task_id = $2 AND id = $3${ownerIs(owner, 4)}`,
      withOwner([tenant, taskId, id], owner),
    );
    return (result.rowCount ?? 0) > 0;
  }
}
