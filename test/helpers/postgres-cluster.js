// A private PostgreSQL cluster, started from the binaries a Debian
// `postgresql` package installs (/usr/lib/postgresql/<major>/bin; or
// $A2A_PG_BIN; or the directory of an `initdb` on PATH). Plain JavaScript, so
// that both the vitest global setup (postgres.ts) and `npm run bench`
// (bench/task-postgres.js) start their clusters with it; types in
// postgres-cluster.d.ts.
//
//   initdb    in a fresh temp dir, trust auth, superuser "postgres"; run as
//             the `postgres` OS user (runuser) when we are root, since
//             PostgreSQL refuses to run as root
//   pg_ctl    starts it on 127.0.0.1 with a free port, its unix socket in the
//             temp dir (no clash with a system cluster), durability off
//   database  the one named is created; its URL is what the caller gets
//   stop      pg_ctl stop -m immediate, then the temp dir is deleted
//
// Every binary runs with a time limit (SPAWN_TIMEOUT_MS; pg_ctl start waits
// at most 60 s).
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import pg from "pg";

export const INSTALL_HINT =
  "PostgreSQL server binaries (initdb, pg_ctl) were not found: install them, e.g. `apt-get install postgresql` " +
  "(Debian/Ubuntu), or set A2A_PG_BIN to the directory holding initdb";

const SPAWN_TIMEOUT_MS = 120_000;

/** The directory holding initdb and pg_ctl, or undefined when there is none. */
export function findPostgresBin() {
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

function freePort() {
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
function runPg(bin, tool, args) {
  const asRoot = process.getuid?.() === 0;
  const cmd = asRoot ? "runuser" : join(bin, tool);
  const argv = asRoot ? ["-u", "postgres", "--", join(bin, tool), ...args] : [...args];
  const r = spawnSync(cmd, argv, { encoding: "utf8", cwd: tmpdir(), timeout: SPAWN_TIMEOUT_MS });
  if (r.status !== 0) {
    throw new Error(`${tool} ${args.join(" ")} failed (${r.status ?? r.error?.message}):\n${r.stdout}\n${r.stderr}`);
  }
}

/** A temp dir the server may use: as root, under /tmp (the postgres user may not reach $TMPDIR) and theirs. */
function makeOwnedTempDir() {
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(asRoot ? "/tmp" : tmpdir(), "a2a-pg-"));
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  return dir;
}

/** Creates and starts a private cluster with `database` in it; the caller stops it (stop() is synchronous). */
export async function startPostgresCluster(bin, database) {
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
      throw new Error(`${error.message}\nserver log:\n${serverLog}`);
    }
    const stop = () => {
      try {
        runPg(bin, "pg_ctl", ["stop", "-m", "immediate", "-D", data]);
      } finally {
        remove();
      }
    };
    try {
      const admin = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
    } catch (error) {
      stop();
      throw error;
    }
    return { url: `postgres://postgres@127.0.0.1:${port}/${database}`, stop };
  } catch (error) {
    remove();
    throw error;
  }
}
