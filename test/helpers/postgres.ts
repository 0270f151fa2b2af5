/**
 * A private PostgreSQL cluster for the tests, started from the binaries a
 * Debian `postgresql` package installs (/usr/lib/postgresql/<major>/bin; or
 * $A2A_PG_BIN; or the directory of an `initdb` on PATH):
 *
 *   initdb     in a fresh temp dir, trust auth, superuser "postgres"; run as
 *              the `postgres` OS user (runuser) when we are root, since
 *              PostgreSQL refuses to run as root
 *   pg_ctl     starts it on 127.0.0.1 with a free port, its unix socket in the
 *              temp dir (no clash with a system cluster), durability off
 *   database   "a2a_test" is created; tests get its URL through vitest's
 *              provide/inject (postgres-setup.ts provides, postgresUrl() reads)
 *   stop       pg_ctl stop -m immediate, then the temp dir is deleted
 *
 * Without binaries the setup provides an error message instead of a URL, and
 * every PostgreSQL test fails with it (CI=true fails the whole run at once).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { inject } from "vitest";
import pg from "pg";

export const INSTALL_HINT =
  "PostgreSQL server binaries (initdb, pg_ctl) were not found: install them, e.g. `apt-get install postgresql` " +
  "(Debian/Ubuntu), or set A2A_PG_BIN to the directory holding initdb";

export interface TestCluster {
  /** postgres://postgres@127.0.0.1:<port>/a2a_test */
  readonly url: string;
  stop(): Promise<void>;
}

/** The directory holding initdb and pg_ctl, or undefined when there is none. */
export function findPostgresBin(): string | undefined {
  const fromEnv = process.env.A2A_PG_BIN;
  if (fromEnv !== undefined && fromEnv !== "") return existsSync(join(fromEnv, "initdb")) ? fromEnv : undefined;
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((d) => /^\d+$/.test(d) && existsSync(join(debian, d, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0] !== undefined) return join(debian, majors[0], "bin");
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary, as the postgres OS user when we are root; throws with its output on failure. */
function runPg(bin: string, tool: string, args: readonly string[]): void {
  const asRoot = process.getuid?.() === 0;
  const cmd = asRoot ? "runuser" : join(bin, tool);
  const argv = asRoot ? ["-u", "postgres", "--", join(bin, tool), ...args] : [...args];
  const r = spawnSync(cmd, argv, { encoding: "utf8", cwd: tmpdir() });
  if (r.status !== 0) {
    throw new Error(`${tool} ${args.join(" ")} failed (${r.status ?? r.error?.message}):\n${r.stdout}\n${r.stderr}`);
  }
}

/** A temp dir the server may use: as root, under /tmp (the postgres user may not reach $TMPDIR) and theirs. */
function makeOwnedTempDir(): string {
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(asRoot ? "/tmp" : tmpdir(), "a2a-pg-"));
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  return dir;
}

/** Creates, starts and fills a private cluster; the caller stops it. */
export async function startTestCluster(bin: string): Promise<TestCluster> {
  const dir = makeOwnedTempDir();
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    runPg(bin, "initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"]);
    const port = await freePort();
    const options = [
      "-c listen_addresses=127.0.0.1",
      `-p ${port}`,
      `-k ${dir}`,
      "-c fsync=off -c synchronous_commit=off -c full_page_writes=off",
      "-c max_connections=200",
    ].join(" ");
    try {
      runPg(bin, "pg_ctl", ["start", "-w", "-t", "60", "-D", data, "-l", log, "-o", options]);
    } catch (error) {
      const serverLog = existsSync(log) ? readFileSync(log, "utf8") : "(no log)";
      throw new Error(`${(error as Error).message}\nserver log:\n${serverLog}`);
    }
    const stop = async () => {
      try {
        runPg(bin, "pg_ctl", ["stop", "-m", "immediate", "-D", data]);
      } finally {
        remove();
      }
    };
    try {
      const admin = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
      await admin.connect();
      await admin.query("CREATE DATABASE a2a_test");
      await admin.end();
    } catch (error) {
      await stop();
      throw error;
    }
    return { url: `postgres://postgres@127.0.0.1:${port}/a2a_test`, stop };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The test database's URL from the global setup; throws (how to install PostgreSQL) when there is none. */
export function postgresUrl(): string {
  const provided = inject("postgres");
  if ("error" in provided) throw new Error(provided.error);
  return provided.url;
}

/** A fresh SQL schema name per test file or test, so stores of different tests never meet. */
export function uniqueSchema(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

declare module "vitest" {
  export interface ProvidedContext {
    postgres: { url: string } | { error: string };
  }
}
