/**
 * A commit, as one statement (so one round trip and one implicit
 * transaction; its data-modifying CTEs see one snapshot and hold or fail
 * together):
 *
 *   1. `t`, the task row: INSERT (expectedVersion 0, with the commit's owner,
 *      "" by default; an existing id conflicts and the commit answers
 *      undefined) or UPDATE ... WHERE version = expected (the owner stays)
 *      (no row: another writer got there first, undefined); the row lock the
 *      UPDATE takes orders concurrent writers of a task. The same statement
 *      writes the turn (../turns.ts): a commit starting one also needs
 *      turn_id IS NULL and sets the turn, its owner (this store instance)
 *      and its lease's end; one leaving the task terminal or interrupted
 *      clears them (turn_trace stays: the last turn's call); a commit
 *      starting a turn writes the traceparent of its call to turn_trace
 *      (null when untraced); the sweeper's commit (leases.ts) also needs the
 *      turn it found, its lease still run out
 *   2. history and artifacts: the rows the statement sends are upserted, a
 *      stored row rewritten only when its digest (or an artifact's position)
 *      changed; rows past the new history, and artifacts no longer in the
 *      task, are deleted. Which rows are sent: when this store committed the
 *      expected version itself, it knows their digests (RowDigests), and
 *      sends only the rows that changed since; else every row
 *   3. `e`, the events: one task_events row each, keyed (version, seq)
 *   4. pg_notify on the schema's channel with {t: tenant, i: task, v: version}
 *      (ids too long for the payload are left out, and listeners then check
 *      all their tasks); PostgreSQL delivers it at COMMIT, so listeners never
 *      see an uncommitted version
 *
 * A commit creating the task writes neither 3 nor 4: nobody else needs its
 * events. Whoever listens to a task on another instance reads it after
 * listening (../store.ts subscribe, ../task-operations.ts), so found it
 * missing and left, or at this version or later and skips its events; this
 * store's own subscribers get them from the commit (event-feed.ts). For a
 * task created done (an executor's calls made together) that is the whole
 * send: no event encoded, no task_events row, and no notification, which
 * woke every listening connection of every instance.
 *
 * Every CTE reads `t`, so a stale version writes nothing at all, and a CTE
 * with nothing to do is left out. The SQL text so depends only on the kind
 * of task-row write and on which CTEs are there (a few dozen variants at
 * most), and each variant is a prepared statement (sql-names.ts). Any failure
 * rolls everything back and is rethrown naming the task (store-error.ts).
 */
import type { StreamResponse } from "../a2a-types.js";
import type { TaskCommit } from "../store.js";
import { endsTurn, turnAfter } from "../turns.js";
import { digest, statusMicros, type StoreCodecs, taskBody } from "./codec.js";
import { RowDigests, type TaskDigests } from "./row-digests.js";
import type { StatementRunner } from "./pipeline.js";
import type { SqlNames } from "./sql-names.js";
import { storeError } from "./store-error.js";

/** Longest NOTIFY payload sent; PostgreSQL's limit is 8000 bytes. */
const MAX_PAYLOAD_BYTES = 1000;

/** Whether the ids fit the NOTIFY payload (else it names only the version and listeners check every task). */
export function idsFitPayload(tenant: string, taskId: string): boolean {
  const json = JSON.stringify({ t: tenant, i: taskId, v: 2 ** 31 });
  return Buffer.byteLength(json, "utf8") <= MAX_PAYLOAD_BYTES;
}

/** Who writes a commit's turn: this store instance and its lease; for the sweeper, the expired turn it ends. */
export interface TurnWriter {
  readonly owner: string;
  readonly leaseMs: number;
  readonly expired?: string;
}

/** What one commit wrote: its version, and the commit's events (the event feed copies them for local subscribers). */
export interface Written {
  readonly version: number;
  readonly events: readonly StreamResponse[];
  /** Whether the events are in task_events too; a creating commit's are not (see the header). */
  readonly stored: boolean;
}

const LEASE_END = (n: string) => `now() + ${n}::bigint * interval '1 millisecond'`;
const STATUS_AT = "'epoch'::timestamptz + $5::bigint * interval '1 microsecond'";

/**
 * The task row's statement (CTE `t`) for an UPDATE, its parameters from $7 on ($1–$6 are the ones every
 * statement has, see CommitWriter.commit): SET and WHERE for the columns, the version and the turn (see the header).
 */
function updateRow(q: string, commit: TaskCommit, writer: TurnWriter, values: unknown[]): string {
  const set = [`context_id = $3, state = $4, status_time = ${STATUS_AT}, body = $6, version = version + 1`];
  set.push("updated_at = now()");
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

/** The task row's statement (CTE `t`) for an INSERT: version 1, the turn it starts, the owner it records. */
function insertRow(q: string, commit: TaskCommit, writer: TurnWriter, values: unknown[]): string {
  const turn = turnAfter(undefined, commit.task.status?.state ?? 0, commit.startTurn);
  const [turnId, turnOwner, lease] = [
    turn ?? null,
    turn === undefined ? null : writer.owner,
    turn === undefined ? null : writer.leaseMs,
  ].map((v) => param(values, v));
  // turn_owner is the store instance running the turn; owner, whom the task belongs to (migrations.ts).
  const owner = param(values, commit.owner ?? "");
  const trace = param(values, commit.startTurn === undefined ? null : (commit.turnTrace ?? null));
  return `INSERT INTO ${q}.tasks
      (tenant, id, context_id, state, status_time, body, version, turn_id, turn_owner, turn_expires, owner, turn_trace)
    VALUES ($1, $2, $3, $4, ${STATUS_AT}, $6, 1, ${turnId}, ${turnOwner}, ${LEASE_END(lease!)}, ${owner}, ${trace})
    ON CONFLICT (tenant, id) DO NOTHING RETURNING version`;
}

/** Adds a query parameter; its placeholder. */
function param(values: unknown[], value: unknown): string {
  values.push(value);
  return `$${values.length}`;
}

/** The rows of history and artifacts a commit sends, and what the stored ones must be trimmed to. */
interface RowChanges {
  readonly history: { seqs: number[]; bodies: Buffer[]; digests: Buffer[] };
  /** Whether rows past the task's history may be stored (unknown, or known to be there). */
  readonly trimHistory: boolean;
  readonly artifacts: { ids: string[]; positions: number[]; bodies: Buffer[]; digests: Buffer[] };
  /** Whether artifacts no longer in the task may be stored (unknown, or known to be there). */
  readonly dropArtifacts: boolean;
  /** What is stored once the commit holds. */
  readonly next: TaskDigests;
}

/**
 * Steps 2–4 of the header: each CTE reads `t`, and is left out when it has nothing to do; then the statement's
 * answer, the version, with the NOTIFY. Parameters go to `values` (placeholders from its length on).
 */
function rowsAndEvents(q: string, changes: RowChanges, events: readonly Buffer[], values: unknown[]): string {
  const ctes: string[] = [];
  const { history, artifacts } = changes;
  if (history.seqs.length > 0) {
    const [seqs, bodies, digests] = [history.seqs, history.bodies, history.digests].map((v) => param(values, v));
    ctes.push(`h AS (INSERT INTO ${q}.history AS s (tenant, task_id, seq, message, digest)
    SELECT $1, $2, u.seq, u.message, u.digest
      FROM t, unnest(${seqs}::integer[], ${bodies}::bytea[], ${digests}::bytea[]) AS u(seq, message, digest)
    ON CONFLICT (tenant, task_id, seq) DO UPDATE SET message = EXCLUDED.message, digest = EXCLUDED.digest
      WHERE s.digest <> EXCLUDED.digest)`);
  }
  if (changes.trimHistory) {
    const length = param(values, changes.next.history.length);
    ctes.push(
      `hx AS (DELETE FROM ${q}.history s USING t WHERE s.tenant = $1 AND s.task_id = $2 AND s.seq >= ${length})`,
    );
  }
  if (artifacts.ids.length > 0) {
    const [ids, positions, bodies, digests] = [
      artifacts.ids,
      artifacts.positions,
      artifacts.bodies,
      artifacts.digests,
    ].map((v) => param(values, v));
    ctes.push(`a AS (INSERT INTO ${q}.artifacts AS s (tenant, task_id, artifact_id, position, artifact, digest)
    SELECT $1, $2, u.id, u.position, u.artifact, u.digest FROM t,
      unnest(${ids}::text[], ${positions}::integer[], ${bodies}::bytea[], ${digests}::bytea[])
      AS u(id, position, artifact, digest)
    ON CONFLICT (tenant, task_id, artifact_id)
      DO UPDATE SET position = EXCLUDED.position, artifact = EXCLUDED.artifact, digest = EXCLUDED.digest
      WHERE s.digest <> EXCLUDED.digest OR s.position <> EXCLUDED.position)`);
  }
  if (changes.dropArtifacts) {
    const kept = param(values, [...changes.next.artifacts.keys()]);
    ctes.push(`ax AS (DELETE FROM ${q}.artifacts s USING t
    WHERE s.tenant = $1 AND s.task_id = $2 AND NOT (s.artifact_id = ANY(${kept}::text[])))`);
  }
  if (events.length > 0) {
    ctes.push(`e AS (INSERT INTO ${q}.task_events (tenant, task_id, version, seq, event)
    SELECT $1, $2, t.version, u.seq - 1, u.event FROM t, unnest(${param(values, events)}::bytea[])
      WITH ORDINALITY AS u(event, seq))`);
  }
  return ctes.map((cte) => `,\n  ${cte}`).join("");
}

/**
 * The statement's answer: the new version, with the NOTIFY of an update (its parameters the channel and
 * whether the ids fit the payload); a commit creating the task notifies nobody (see the header).
 */
function answer(creating: boolean, taskId: string, channel: string, values: unknown[]): string {
  if (creating) return "SELECT t.version FROM t";
  const [to, fit] = [channel, idsFitPayload(values[0] as string, taskId)].map((v) => param(values, v));
  return `SELECT t.version, pg_notify(${to}, CASE WHEN ${fit}::boolean
    THEN json_build_object('t', $1::text, 'i', $2::text, 'v', t.version)
    ELSE json_build_object('v', t.version) END::text) AS notified
  FROM t`;
}

/** What a task with no version stored yet holds: nothing. */
const NOTHING_STORED: TaskDigests = { history: [], artifacts: new Map() };

/** The rows of history and artifacts to send, given what the stored version holds, if known (see the header). */
function rowChanges(codecs: StoreCodecs, task: TaskCommit["task"], known: TaskDigests | undefined): RowChanges {
  const next: TaskDigests = { history: [], artifacts: new Map() };
  const history: RowChanges["history"] = { seqs: [], bodies: [], digests: [] };
  task.history.forEach((message, seq) => {
    const body = codecs.message.encode(message);
    const sum = digest(body);
    const hex = sum.toString("hex");
    next.history.push(hex);
    if (known?.history[seq] === hex) return;
    history.seqs.push(seq);
    history.bodies.push(body);
    history.digests.push(sum);
  });
  const artifacts: RowChanges["artifacts"] = { ids: [], positions: [], bodies: [], digests: [] };
  task.artifacts.forEach((artifact, position) => {
    if (next.artifacts.has(artifact.artifactId)) {
      throw new Error(`artifact id "${artifact.artifactId}" appears twice in the task's artifacts`);
    }
    const body = codecs.artifact.encode(artifact);
    const sum = digest(body);
    const stamp = `${position}:${sum.toString("hex")}`;
    next.artifacts.set(artifact.artifactId, stamp);
    if (known?.artifacts.get(artifact.artifactId) === stamp) return;
    artifacts.ids.push(artifact.artifactId);
    artifacts.positions.push(position);
    artifacts.bodies.push(body);
    artifacts.digests.push(sum);
  });
  const trimHistory = known === undefined || known.history.length > next.history.length;
  const dropArtifacts = known === undefined || [...known.artifacts.keys()].some((id) => !next.artifacts.has(id));
  return { history, trimHistory, artifacts, dropArtifacts, next };
}

/** Writes commits, one statement each (see the header), remembering the digests of what it wrote. */
export class CommitWriter {
  private readonly digests = new RowDigests();

  constructor(
    private readonly db: StatementRunner,
    private readonly names: SqlNames,
    private readonly codecs: StoreCodecs,
  ) {}

  /** The new version and the events, or undefined when the expected version is stale (nothing written). */
  async commit(tenant: string, commit: TaskCommit, writer: TurnWriter): Promise<Written | undefined> {
    const { task } = commit;
    const where = `commit of task "${task.id}" (tenant "${tenant}", expected version ${commit.expectedVersion})`;
    try {
      const creating = commit.expectedVersion === 0;
      const known = creating ? NOTHING_STORED : this.digests.known(tenant, task.id, commit.expectedVersion);
      const changes = rowChanges(this.codecs, task, known);
      // A creating commit's events are handed to this store's subscribers only (see the header).
      const events = creating ? [] : commit.events.map((e) => this.codecs.event.encode(e));
      const values: unknown[] = [tenant, task.id, task.contextId, task.status?.state ?? 0, statusMicros(task)];
      values.push(taskBody(this.codecs, task));
      const row = (creating ? insertRow : updateRow)(this.names.q, commit, writer, values);
      const ctes = rowsAndEvents(this.names.q, changes, events, values);
      const text = `WITH t AS (${row})${ctes}\n${answer(creating, task.id, this.names.channel, values)}`;
      const result = await this.db.query<{ version: number }>({
        name: this.names.statements.name("commit", text),
        text,
        values,
      });
      const version = result.rows[0]?.version;
      if (version === undefined) {
        this.digests.forget(tenant, task.id);
        return undefined;
      }
      this.digests.remember(tenant, task.id, version, changes.next);
      return { version, events: commit.events, stored: !creating };
    } catch (error) {
      this.digests.forget(tenant, task.id);
      throw storeError(where, error);
    }
  }
}
