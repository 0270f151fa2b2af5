/**
 * Runs the binary's bundle (dist/protoc-gen-a2a.cjs, scripts/bundle/bundle.js) with V8's code cache, so that a
 * plugin process does not compile again what the previous one compiled. bin/protoc-gen-a2a.cjs calls runBundle from
 * dist/load-bundle.cjs, this module bundled as CommonJS, so that Node starts the binary without its ES module
 * loader (10-15 ms of a plugin run); the bundle then runs as Node runs a CommonJS file (src/host/run-node.ts
 * decides what the process does).
 *
 * Rule:
 *   - flags: V8's flags for the process (v8-flags.ts) are set first, before the bundle compiles;
 *   - where: the directory PROTOC_GEN_A2A_CODE_CACHE names, else `.v8-cache/` beside the bundle, which is as
 *     private as the package's own code; PROTOC_GEN_A2A_CODE_CACHE=off turns the cache off;
 *   - which file: `<key>.v8cache`, the key being 16 hex digits of the sha256 of the bundle's bytes, the Node
 *     version, the architecture and the flags (Node's command line, NODE_OPTIONS and PLUGIN_V8_FLAGS), so that no
 *     other bundle, Node or set of flags reads it, and two of them do not write it in turn. V8 checks it as well
 *     (its own version, its flags, the source's length, a checksum) and refuses a cache that does not fit: the
 *     process then compiles as usual;
 *   - when: a plugin run (plugin-run.ts) that found no cache, or whose cache V8
 *     refused, writes one as it exits with 0, after its run, so that the cache holds every function a plugin run
 *     compiles and not only the top level (a command, --version or a refused request would leave out most of
 *     them, and V8 would then accept that thin cache for good). It writes a temporary file and renames
 *     it over the cache, so that a process started meanwhile (buf runs plugins in parallel) reads either no
 *     cache or a whole one, then keeps the MAX_FILES newest caches of the directory. The cache holds what
 *     the run that wrote it compiled: a later run with other outputs (emit=) compiles the rest as usual. It is
 *     written under PLUGIN_V8_FLAGS, set again first: V8 stamps a cache with the flags of the moment, and a run
 *     on a large request has changed one (v8-flags.ts);
 *   - failures: the cache only saves time. A directory that cannot be made, read or written (a read-only
 *     install) costs the time the cache would have saved, and is not reported.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { isatty } from "node:tty";
import { Script } from "node:vm";
import { makeDirectory } from "../make-directory.js";
import { isPluginRun } from "./plugin-run.js";
import { PLUGIN_V8_FLAGS, setPluginFlags } from "./v8-flags.js";

/** Cache files kept in one directory: a few Node versions, or bundles, side by side. */
export const MAX_FILES = 4;
const SUFFIX = ".v8cache";
/** A temporary file older than this was left by a process that died while writing it. */
const STALE_TEMP_MS = 60_000;

/** What Node passes a CommonJS module's code. */
type CommonJsFunction = (
  exports: unknown,
  require: NodeRequire,
  module: { exports: unknown },
  filename: string,
  dirname: string,
) => void;

/** Runs the bundle at the path `file` as a CommonJS module, compiled with the code cache when there is one. */
export function runBundle(file: string, env: NodeJS.ProcessEnv = process.env): void {
  setPluginFlags();
  const source = readFileSync(file);
  const cache = cacheFile(source, file, env.PROTOC_GEN_A2A_CODE_CACHE, env.NODE_OPTIONS);
  const cachedData = cache === undefined ? undefined : readIfThere(cache);
  // The wrapper Node's CommonJS loader puts around a file, on the file's first line so that lines keep their numbers.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source.toString()}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (
    cache !== undefined &&
    isPluginRun(process.argv.slice(2), isatty(0)) &&
    (cachedData === undefined || script.cachedDataRejected === true)
  ) {
    process.once("exit", (code) => {
      if (code !== 0) return;
      // The flags the next process compiles under: the run may have changed them (fitToRequest), and V8 refuses
      // a cache made under other flags.
      setPluginFlags();
      writeCache(cache, () => script.createCachedData());
    });
  }
  const run = script.runInThisContext() as CommonJsFunction;
  const module = { exports: {} };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
}

/** The cache file of this bundle on this Node, or undefined when the cache is off. */
export function cacheFile(
  source: Uint8Array,
  bundleFile: string,
  setting: string | undefined,
  nodeOptions = "",
): string | undefined {
  if (setting === "off") return undefined;
  const dir = setting ? resolve(setting) : join(dirname(bundleFile), ".v8-cache");
  const flags = [PLUGIN_V8_FLAGS, ...process.execArgv, nodeOptions].join("\0");
  const key = createHash("sha256")
    .update(source)
    .update(`\0${process.version}\0${process.arch}\0${flags}`)
    .digest("hex")
    .slice(0, 16);
  return join(dir, `${key}${SUFFIX}`);
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined; // none yet, or not readable: compile as usual
  }
}

/** Writes the cache whole (a temporary file renamed over it), then keeps the newest MAX_FILES of its directory. */
function writeCache(file: string, data: () => Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    if (makeDirectory(dirname(file))) return; // not made: no cache (see the rule)
    writeFileSync(temp, data());
    renameSync(temp, file);
    prune(dirname(file), file);
  } catch {
    // The cache only saves time (see the rule); a temporary file that was written goes.
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}

function prune(dir: string, keep: string): void {
  const now = Date.now();
  const found = readdirSync(dir).map((name) => {
    const path = join(dir, name);
    return { name, path, mtime: statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? now };
  });
  for (const t of found.filter((f) => f.name.endsWith(".tmp") && now - f.mtime > STALE_TEMP_MS)) {
    rmSync(t.path, { force: true });
  }
  const caches = found.filter((f) => f.name.endsWith(SUFFIX) && f.path !== keep).sort((a, b) => b.mtime - a.mtime);
  for (const old of caches.slice(MAX_FILES - 1)) rmSync(old.path, { force: true });
}
