/**
 * Push notification configs in push_configs, keyed (tenant, task_id, id),
 * the config as protobuf binary next to the protocol version of the call that
 * created it. Listing is by id, keyset-paged (page token: the last id).
 *
 * A put runs in one transaction that first locks the task's row (FOR NO KEY
 * UPDATE): a missing task is TaskNotFoundError, and a new id beyond
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
  readonly config: Buffer;
}

export class PushConfigTable {
  constructor(
    private readonly db: pg.Pool,
    private readonly names: SqlNames,
    private readonly codecs: StoreCodecs,
    private readonly maxPerTask: number,
  ) {}

  private stored(row: ConfigRow): StoredPushConfig {
    return { config: this.codecs.pushConfig.decode(row.config), protocolVersion: row.protocol_version };
  }

  async put(tenant: string, stored: StoredPushConfig): Promise<void> {
    const { config } = stored;
    const { q } = this.names;
    const where = `put of push config "${config.id}" of task "${config.taskId}" (tenant "${tenant}")`;
    await inTransaction(this.db, where, async (client) => {
      const task = await client.query(`SELECT 1 FROM ${q}.tasks WHERE tenant = $1 AND id = $2 FOR NO KEY UPDATE`, [
        tenant,
        config.taskId,
      ]);
      if (task.rowCount === 0) throw pushConfigTaskMissing(config.id, config.taskId);
      const have = await client.query<{ n: number; replacing: boolean }>(
        `SELECT count(*)::integer AS n, coalesce(bool_or(id = $3), false) AS replacing
         FROM ${q}.push_configs WHERE tenant = $1 AND task_id = $2`,
        [tenant, config.taskId, config.id],
      );
      const { n = 0, replacing = false } = have.rows[0] ?? {};
      if (!replacing && n >= this.maxPerTask) throw tooManyPushConfigs(config.id, config.taskId, n, this.maxPerTask);
      await client.query(
        `INSERT INTO ${q}.push_configs (tenant, task_id, id, protocol_version, config)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant, task_id, id) DO UPDATE
           SET protocol_version = EXCLUDED.protocol_version, config = EXCLUDED.config, updated_at = now()`,
        [tenant, config.taskId, config.id, stored.protocolVersion, this.codecs.pushConfig.encode(config)],
      );
    });
  }

  async get(tenant: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const result = await this.db.query<ConfigRow>(
      `SELECT id, protocol_version, config FROM ${this.names.q}.push_configs
       WHERE tenant = $1 AND task_id = $2 AND id = $3`,
      [tenant, taskId, id],
    );
    const row = result.rows[0];
    return row === undefined ? undefined : this.stored(row);
  }

  async list(tenant: string, taskId: string, pageSize: number, pageToken: string): Promise<PushConfigPage> {
    const scope = [tenant, taskId];
    const after = readPushConfigPageToken(pageToken, scope, "ListTaskPushNotificationConfigs");
    const limit = pageSize > 0 ? pageSize + 1 : null;
    const result = await this.db.query<ConfigRow>(
      `SELECT id, protocol_version, config FROM ${this.names.q}.push_configs
       WHERE tenant = $1 AND task_id = $2 AND ($3::text IS NULL OR id > $3) ORDER BY id LIMIT $4`,
      [tenant, taskId, after ?? null, limit],
    );
    const rows = pageSize > 0 ? result.rows.slice(0, pageSize) : result.rows;
    const last = rows[rows.length - 1];
    const more = result.rows.length > rows.length && last !== undefined;
    return {
      configs: rows.map((row) => this.stored(row)),
      nextPageToken: more ? pushConfigPageToken(last.id, scope) : "",
    };
  }

  async delete(tenant: string, taskId: string, id: string): Promise<boolean> {
    const result = await this.db.query(
      `DELETE FROM ${this.names.q}.push_configs WHERE tenant = $1 AND task_id = $2 AND id = $3`,
      [tenant, taskId, id],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
