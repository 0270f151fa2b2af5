/**
 * Reading tasks: get by (tenant, id) and ListTasks, each task read whole in one
 * statement (one snapshot: body, history in seq order, artifacts in position
 * order; for get, the running turn too), so a concurrent commit is seen
 * entirely or not at all. An owner, when given (../store.ts owners), is one
 * more condition of the same statement (`AND t.owner = $n`): another owner's
 * task is not found, in the same one round trip as a missing one. A get is
 * a prepared statement (sql-names.ts): planning it again on every call cost
 * more than running it.
 *
 *   list   filters (context, state, status after) and the keyset cursor in
 *          SQL, ordered status_time DESC, id ASC to walk the
 *          (tenant, [context_id | state,] status_time DESC, id) indexes (the
 *          cursor as `status_time <= t AND (status_time < t OR id > i)`, so
 *          the scan seeks to it instead of filtering every earlier row); one
 *          row more than the page tells whether a next page exists;
 *          totalSize is a COUNT(*) with the same filters, without the cursor.
 *          With an owner, tasks_by_owner (tenant, owner, status_time DESC,
 *          id) serves the listing (or the context index, the owner a filter).
 *          The query's view and maxBytes (store.ts) are taken: a task is read
 *          as the view keeps it, and the page stops at maxBytes (pageSql)
 */
import type pg from "pg";
import type { StoredTask, TaskPage, TaskQuery, TaskView } from "../store.js";
import type { Task } from "../a2a-types.js";
import type { StoreCodecs } from "./codec.js";
import { readTaskPageToken, taskPageToken } from "./page-token.js";
import type { StatementRunner } from "./pipeline.js";
import type { SqlNames } from "./sql-names.js";

interface TaskRow {
  readonly id: string;
  readonly version: number;
  readonly body: Buffer;
  readonly status_us: string;
  /** The history messages in order, each hex, joined by commas; null for none. */
  readonly history: string | null;
  /** The artifacts in order, as history. */
  readonly artifacts: string | null;
}

/**
 * A list reads only what its view keeps (store.ts TaskView): no artifacts unless asked for, the last
 * historyLength messages. History and artifacts come as one text of hex items, not as bytea[]: the driver
 * parses an array's text character by character in JavaScript (about 150 ms for 300 KB of messages, on the
 * event loop), where Buffer.from(hex) is native (about 1 ms).
 */
function taskColumns(q: string, view?: TaskView): string {
  return `t.id, t.version, t.body,
    (extract(epoch FROM t.status_time) * 1000000)::bigint::text AS status_us,
    ${historyColumn(q, view?.historyLength)} AS history,
    ${view?.includeArtifacts === false ? "NULL" : artifactsColumn(q)} AS artifacts`;
}

/**
 * The history rows a view keeps, as a FROM item `l` (message, seq): all of them, or the last `length` (a whole
 * number, checked by the handler); undefined for none (length 0).
 */
function keptHistory(q: string, length: number | undefined): string | undefined {
  const all = `SELECT h.message, h.seq FROM ${q}.history h WHERE h.tenant = t.tenant AND h.task_id = t.id`;
  if (length === undefined || !Number.isSafeInteger(length) || length < 0) return `(${all}) l`;
  return length === 0 ? undefined : `(${all} ORDER BY h.seq DESC LIMIT ${length}) l`;
}

function historyColumn(q: string, length: number | undefined): string {
  const kept = keptHistory(q, length);
  return kept === undefined ? "NULL" : `(SELECT string_agg(encode(l.message, 'hex'), ',' ORDER BY l.seq) FROM ${kept})`;
}

function artifactsColumn(q: string): string {
  return `(SELECT string_agg(encode(a.artifact, 'hex'), ',' ORDER BY a.position) FROM ${q}.artifacts a
      WHERE a.tenant = t.tenant AND a.task_id = t.id)`;
}

function hexItems(joined: string | null): Buffer[] {
  return joined === null ? [] : joined.split(",").map((hex) => Buffer.from(hex, "hex"));
}

function toTask(codecs: StoreCodecs, row: TaskRow): Task {
  const task = codecs.task.decode(row.body);
  task.history = hexItems(row.history).map((b) => codecs.message.decode(b));
  task.artifacts = hexItems(row.artifacts).map((b) => codecs.artifact.decode(b));
  return task;
}

export async function readTask(
  db: StatementRunner,
  names: SqlNames,
  codecs: StoreCodecs,
  tenant: string,
  taskId: string,
  owner: string | undefined,
): Promise<StoredTask | undefined> {
  const byOwner = owner === undefined ? "" : " AND t.owner = $3";
  const { name, text } = names.statements.once(
    owner === undefined ? "get" : "get_owned",
    () => `SELECT ${taskColumns(names.q)}, t.turn_id, t.turn_trace FROM ${names.q}.tasks t
     WHERE t.tenant = $1 AND t.id = $2${byOwner}`,
  );
  const result = await db.query<TaskRow & { turn_id: string | null; turn_trace: string | null }>({
    name,
    text,
    values: owner === undefined ? [tenant, taskId] : [tenant, taskId, owner],
  });
  const row = result.rows[0];
  if (row === undefined) return undefined;
  const turnTrace = row.turn_trace === null ? {} : { turnTrace: row.turn_trace };
  return { task: toTask(codecs, row), version: row.version, turn: row.turn_id ?? undefined, ...turnTrace };
}

/**
 * The page's statement: the tasks of `where` in list order, at most `limit`. With `max` (TaskQuery.maxBytes),
 * only those within it: the first, and each whose running total of encoded bytes (of what the view keeps) is at
 * most `max`; each row then tells how many the page had before the cut (page_rows). The sizes are read from
 * the row lengths, so the tasks cut are never read.
 */
function pageSql(q: string, where: string, limit: string, view: TaskView | undefined, max: string | undefined) {
  const order = "t.status_time DESC, t.id";
  if (max === undefined) {
    return `SELECT ${taskColumns(q, view)} FROM ${q}.tasks t WHERE ${where} ORDER BY ${order} LIMIT ${limit}`;
  }
  const listed = "ORDER BY p.status_time DESC, p.id";
  return `WITH page AS (
      SELECT t.tenant, t.id, t.status_time, ${sizeOf(q, view)} AS size FROM ${q}.tasks t
      WHERE ${where} ORDER BY ${order} LIMIT ${limit}),
    kept AS (
      SELECT p.tenant, p.id, (count(*) OVER ())::int AS page_rows, row_number() OVER (${listed}) AS n,
        sum(p.size) OVER (${listed} ROWS UNBOUNDED PRECEDING) AS upto
      FROM page p)
    SELECT ${taskColumns(q, view)}, k.page_rows FROM kept k JOIN ${q}.tasks t ON t.tenant = k.tenant AND t.id = k.id
    WHERE k.n = 1 OR k.upto <= ${max} ORDER BY ${order}`;
}

/** A task's encoded bytes as the view keeps it: its body, its history (or the last messages), its artifacts. */
function sizeOf(q: string, view: TaskView | undefined): string {
  const kept = keptHistory(q, view?.historyLength);
  const history = kept === undefined ? "0" : `(SELECT sum(octet_length(l.message)) FROM ${kept})`;
  const artifacts =
    view?.includeArtifacts === false
      ? "0"
      : `(SELECT sum(octet_length(a.artifact)) FROM ${q}.artifacts a WHERE a.tenant = t.tenant AND a.task_id = t.id)`;
  return `octet_length(t.body) + coalesce(${history}, 0) + coalesce(${artifacts}, 0)`;
}

/** The WHERE clause of the query's filters, with its parameters from $1 (the tenant). */
function filters(query: TaskQuery): { where: string[]; params: unknown[] } {
  const where = ["t.tenant = $1"];
  const params: unknown[] = [];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length + 1}`));
  };
  if (query.owner !== undefined) add((n) => `t.owner = ${n}`, query.owner);
  if (query.contextId !== "") add((n) => `t.context_id = ${n}`, query.contextId);
  if (query.status !== 0) add((n) => `t.state = ${n}`, query.status);
  if (query.statusAfterMs !== undefined) {
    // At or after (a2a.proto status_timestamp_after), to the microsecond as stored.
    const micros = Math.round(query.statusAfterMs * 1000);
    add((n) => `t.status_time >= 'epoch'::timestamptz + ${n}::bigint * interval '1 microsecond'`, micros);
  }
  return { where, params };
}

export async function listTasks(
  db: pg.Pool,
  names: SqlNames,
  codecs: StoreCodecs,
  tenant: string,
  query: TaskQuery,
): Promise<TaskPage> {
  const { q } = names;
  const scope = [tenant, query.contextId, query.status, query.statusAfterMs ?? null, query.owner ?? null];
  const cursor = readTaskPageToken(query.pageToken, scope, "ListTasks");
  const { where, params } = filters(query);
  const count = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM ${q}.tasks t WHERE ${where.join(" AND ")}`,
    [tenant, ...params],
  );
  const pageWhere = [...where];
  const pageParams: unknown[] = [tenant, ...params];
  if (cursor !== undefined) {
    pageParams.push(cursor.statusMicros, cursor.id);
    const at = `('epoch'::timestamptz + $${pageParams.length - 1}::bigint * interval '1 microsecond')`;
    // The `<=` bound is what lets the index seek to the cursor; the OR then skips the ties already listed.
    pageWhere.push(`t.status_time <= ${at} AND (t.status_time < ${at} OR t.id > $${pageParams.length})`);
  }
  pageParams.push(query.pageSize + 1);
  const limit = `$${pageParams.length}`;
  const max = query.maxBytes;
  const bounded = max !== undefined && Number.isSafeInteger(max) && max > 0;
  if (bounded) pageParams.push(max);
  const sql = pageSql(q, pageWhere.join(" AND "), limit, query.view, bounded ? `$${pageParams.length}` : undefined);
  const page = await db.query<TaskRow & { page_rows: number }>(sql, pageParams);
  const rows = page.rows.slice(0, query.pageSize);
  const last = rows[rows.length - 1];
  // The rows the page had before the byte cut (one more than pageSize when a next page exists).
  const pageRows = bounded ? (page.rows[0]?.page_rows ?? 0) : page.rows.length;
  const more = last !== undefined && rows.length < pageRows;
  return {
    tasks: rows.map((row) => toTask(codecs, row)),
    nextPageToken: more ? taskPageToken({ statusMicros: last.status_us, id: last.id }, scope) : "",
    totalSize: Number(count.rows[0]?.n ?? 0),
  };
}
