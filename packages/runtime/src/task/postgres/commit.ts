/**
 * A commit, in one transaction:
 *
 *   1. the task row: INSERT (expectedVersion 0, with the commit's owner, ""
 *      by default; an existing id conflicts and the commit answers
 *      undefined) or UPDATE ... WHERE version = expected (the owner stays)
 *      (no row: another writer got there first, undefined); the row lock the
 *      UPDATE takes orders concurrent writers of a task. The same statement
 *      writes the turn (../turns.ts): a commit starting one also needs
 *      turn_id IS NULL and sets the turn, its owner (this store instance)
 *      and its lease's end; one leaving the task terminal or interrupted
 *      clears them (turn_trace stays: the last turn's call); a commit
 *      starting a turn writes the traceparent of its call to turn_trace
 *      (null when untraced); the sweeper's commit (leases.ts) also needs the turn it
 *      found, its lease still run out
 *   2. history and artifacts: the digests of the stored rows are read and only
 *      rows whose body changed (or moved) are written; rows past the new
 *      history, and artifacts no longer in the task, are deleted
 *   3. the events: one task_events row each, keyed (version, seq)
 *   4. pg_notify on the schema's channel with {tenant, task, version} (the
 *      payload stays far below NOTIFY's 8000-byte limit: ids too long for it
 *      are left out, and listeners then check all their tasks); PostgreSQL
 *      delivers it at COMMIT, so listeners never see an uncommitted version
 *
 * Any failure rolls everything back and is rethrown naming the task
 * (transaction.ts).
 */
import type pg from "pg";
import type { TaskCommit } from "../store.js";
import { endsTurn, turnAfter } from "../turns.js";
import { digest, statusMicros, type StoreCodecs, taskBody } from "./codec.js";
import type { SqlNames } from "./sql-names.js";
import { inTransaction } from "./transaction.js";

/** Longest NOTIFY payload sent; PostgreSQL's limit is 8000 bytes. */
const MAX_PAYLOAD_BYTES = 1000;

export interface NotifyPayload {
  readonly tenant: string;
  readonly taskId: string;
  readonly version: number;
}

export function notifyPayload(payload: NotifyPayload): string {
  const json = JSON.stringify({ t: payload.tenant, i: payload.taskId, v: payload.version });
  return Buffer.byteLength(json, "utf8") <= MAX_PAYLOAD_BYTES ? json : JSON.stringify({ v: payload.version });
}

/** Who writes a commit's turn: this store instance and its lease; for the sweeper, the expired turn it ends. */
export interface TurnWriter {
  readonly owner: string;
  readonly leaseMs: number;
  readonly expired?: string;
}

const LEASE_END = (n: string) => `now() + ${n}::bigint * interval '1 millisecond'`;

/** The UPDATE of the task row: SET and WHERE for the columns, the version and the turn (see the header). */
function updateSql(q: string, commit: TaskCommit, writer: TurnWriter, values: unknown[]): string {
  const at = "'epoch'::timestamptz + $5::bigint * interval '1 microsecond'";
  const set = [
    `context_id = $3, state = $4, status_time = ${at}, body = $6, version = version + 1, updated_at = now()`,
  ];
  const where = ["tenant = $1 AND id = $2", `version = ${param(values, commit.expectedVersion)}`];
  if (commit.startTurn !== undefined) where.push("turn_id IS NULL");
  if (writer.expired !== undefined) where.push(`turn_id = ${param(values, writer.expired)} AND turn_expires < now()`);
  if (endsTurn(commit.task.status?.state)) set.push("turn_id = NULL, turn_owner = NULL, turn_expires = NULL");
  else if (commit.startTurn !== undefined) {
    const [turn, owner, lease] = [commit.startTurn, writer.owner, writer.leaseMs].map((v) => param(values, v));
    set.push(`turn_id = ${turn}, turn_owner = ${owner}, turn_expires = ${LEASE_END(lease!)}`);
  }
  if (commit.startTurn !== undefined) set.push(`turn_trace = ${param(values, commit.turnTrace ?? null)}`);
  return `UPDATE ${q}.tasks SET ${set.join(", ")} WHERE ${where.join(" AND ")} RETURNING version`;
}

/** Adds a query parameter; its placeholder. */
function param(values: unknown[], value: unknown): string {
  values.push(value);
  return `$${values.length}`;
}

async function writeTaskRow(
  client: pg.ClientBase,
  names: SqlNames,
  codecs: StoreCodecs,
  tenant: string,
  commit: TaskCommit,
  writer: TurnWriter,
): Promise<number | undefined> {
  const { task } = commit;
  const state = task.status?.state ?? 0;
  const values: unknown[] = [tenant, task.id, task.contextId, state, statusMicros(task), taskBody(codecs, task)];
  if (commit.expectedVersion !== 0) {
    const sql = updateSql(names.q, commit, writer, values);
    return (await client.query<{ version: number }>(sql, values)).rows[0]?.version;
  }
  const turn = turnAfter(undefined, state, commit.startTurn);
  values.push(turn ?? null, turn === undefined ? null : writer.owner, turn === undefined ? null : writer.leaseMs);
  // turn_owner is the store instance running the turn; owner, whom the task belongs to (migrations.ts).
  values.push(commit.owner ?? "", commit.startTurn === undefined ? null : (commit.turnTrace ?? null));
  const result = await client.query<{ version: number }>(
    `INSERT INTO ${names.q}.tasks
       (tenant, id, context_id, state, status_time, body, version, turn_id, turn_owner, turn_expires, owner, turn_trace)
     VALUES ($1, $2, $3, $4, 'epoch'::timestamptz + $5::bigint * interval '1 microsecond', $6, 1, $7, $8,
       ${LEASE_END("$9")}, $10, $11)
     ON CONFLICT (tenant, id) DO NOTHING RETURNING version`,
    values,
  );
  return result.rows[0]?.version;
}

async function syncHistory(
  client: pg.ClientBase,
  names: SqlNames,
  codecs: StoreCodecs,
  tenant: string,
  commit: TaskCommit,
): Promise<void> {
  const { q } = names;
  const { task } = commit;
  const stored = new Map<number, string>();
  if (commit.expectedVersion !== 0) {
    const rows = await client.query<{ seq: number; digest: Buffer }>(
      `SELECT seq, digest FROM ${q}.history WHERE tenant = $1 AND task_id = $2`,
      [tenant, task.id],
    );
    for (const row of rows.rows) stored.set(row.seq, row.digest.toString("hex"));
  }
  const seqs: number[] = [];
  const bodies: Buffer[] = [];
  const digests: Buffer[] = [];
  task.history.forEach((message, seq) => {
    const body = codecs.message.encode(message);
    const sum = digest(body);
    if (stored.get(seq) === sum.toString("hex")) return;
    seqs.push(seq);
    bodies.push(body);
    digests.push(sum);
  });
  if (seqs.length > 0) {
    await client.query(
      `INSERT INTO ${q}.history (tenant, task_id, seq, message, digest)
       SELECT $1, $2, u.seq, u.message, u.digest FROM unnest($3::integer[], $4::bytea[], $5::bytea[])
         AS u(seq, message, digest)
       ON CONFLICT (tenant, task_id, seq) DO UPDATE SET message = EXCLUDED.message, digest = EXCLUDED.digest`,
      [tenant, task.id, seqs, bodies, digests],
    );
  }
  if (stored.size > task.history.length) {
    await client.query(`DELETE FROM ${q}.history WHERE tenant = $1 AND task_id = $2 AND seq >= $3`, [
      tenant,
      task.id,
      task.history.length,
    ]);
  }
}

async function syncArtifacts(
  client: pg.ClientBase,
  names: SqlNames,
  codecs: StoreCodecs,
  tenant: string,
  commit: TaskCommit,
): Promise<void> {
  const { q } = names;
  const { task } = commit;
  const stored = new Map<string, string>();
  if (commit.expectedVersion !== 0) {
    const rows = await client.query<{ artifact_id: string; position: number; digest: Buffer }>(
      `SELECT artifact_id, position, digest FROM ${q}.artifacts WHERE tenant = $1 AND task_id = $2`,
      [tenant, task.id],
    );
    for (const row of rows.rows) stored.set(row.artifact_id, `${row.position}:${row.digest.toString("hex")}`);
  }
  const ids: string[] = [];
  const positions: number[] = [];
  const bodies: Buffer[] = [];
  const digests: Buffer[] = [];
  const seen = new Set<string>();
  task.artifacts.forEach((artifact, position) => {
    if (seen.has(artifact.artifactId)) {
      throw new Error(`artifact id "${artifact.artifactId}" appears twice in the task's artifacts`);
    }
    seen.add(artifact.artifactId);
    const body = codecs.artifact.encode(artifact);
    const sum = digest(body);
    if (stored.get(artifact.artifactId) === `${position}:${sum.toString("hex")}`) return;
    ids.push(artifact.artifactId);
    positions.push(position);
    bodies.push(body);
    digests.push(sum);
  });
  if (ids.length > 0) {
    await client.query(
      `INSERT INTO ${q}.artifacts (tenant, task_id, artifact_id, position, artifact, digest)
       SELECT $1, $2, u.id, u.position, u.artifact, u.digest
         FROM unnest($3::text[], $4::integer[], $5::bytea[], $6::bytea[]) AS u(id, position, artifact, digest)
       ON CONFLICT (tenant, task_id, artifact_id)
         DO UPDATE SET position = EXCLUDED.position, artifact = EXCLUDED.artifact, digest = EXCLUDED.digest`,
      [tenant, task.id, ids, positions, bodies, digests],
    );
  }
  if ([...stored.keys()].some((id) => !seen.has(id))) {
    await client.query(
      `DELETE FROM ${q}.artifacts WHERE tenant = $1 AND task_id = $2 AND NOT (artifact_id = ANY($3::text[]))`,
      [tenant, task.id, [...seen]],
    );
  }
}

async function insertEvents(
  client: pg.ClientBase,
  names: SqlNames,
  codecs: StoreCodecs,
  tenant: string,
  commit: TaskCommit,
  version: number,
): Promise<void> {
  if (commit.events.length > 0) {
    await client.query(
      `INSERT INTO ${names.q}.task_events (tenant, task_id, version, seq, event)
       SELECT $1, $2, $3, u.seq - 1, u.event FROM unnest($4::bytea[]) WITH ORDINALITY AS u(event, seq)`,
      [tenant, commit.task.id, version, commit.events.map((e) => codecs.event.encode(e))],
    );
  }
  const payload = notifyPayload({ tenant, taskId: commit.task.id, version });
  await client.query("SELECT pg_notify($1, $2)", [names.channel, payload]);
}

/**
 * Writes the commit; the new version, or undefined when the expected version is stale (the transaction then
 * wrote nothing, so it commits as empty).
 */
export async function commitTask(
  db: pg.Pool,
  names: SqlNames,
  codecs: StoreCodecs,
  tenant: string,
  commit: TaskCommit,
  writer: TurnWriter,
): Promise<number | undefined> {
  const where = `commit of task "${commit.task.id}" (tenant "${tenant}", expected version ${commit.expectedVersion})`;
  return inTransaction(db, where, async (client) => {
    const version = await writeTaskRow(client, names, codecs, tenant, commit, writer);
    if (version === undefined) return undefined;
    await syncHistory(client, names, codecs, tenant, commit);
    await syncArtifacts(client, names, codecs, tenant, commit);
    await insertEvents(client, names, codecs, tenant, commit, version);
    return version;
  });
}
