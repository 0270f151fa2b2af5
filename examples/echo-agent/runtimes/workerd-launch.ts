/**
 * Runs worker.ts in workerd on 127.0.0.1:PORT (default 9999) through Miniflare, both from npm: esbuild bundles
 * the worker (Node's built-ins left to workerd's nodejs_compat, which push delivery imports on demand), then
 * Miniflare starts workerd with it. The first line names the runtime and its version; the worker's request
 * lines follow. Stops on SIGTERM or SIGINT. Called by main.ts for `--runtime workerd`.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Log, LogLevel, Miniflare } from "miniflare";
import { announce, portFromEnv } from "./fetch-main.js";

const require = createRequire(import.meta.url);
const write = (line: string) => process.stdout.write(line);

/** The worker and everything it imports, as one ES module. */
async function bundle(): Promise<string> {
  const out = await build({
    entryPoints: [fileURLToPath(new URL("./worker.js", import.meta.url))],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    logLevel: "error",
  });
  return out.outputFiles[0]!.text;
}

export async function launchWorkerd(): Promise<void> {
  const port = portFromEnv(process.env["PORT"]);
  const mf = new Miniflare({
    modules: true,
    script: await bundle(),
    compatibilityDate: "2026-04-01",
    compatibilityFlags: ["nodejs_compat"],
    host: "127.0.0.1",
    port,
    log: new Log(LogLevel.WARN),
    // No request to workers.cloudflare.com for the `cf` object: there is no network to reach it.
    cf: false,
  });
  const url = await mf.ready;
  const version = (require("workerd/package.json") as { version: string }).version;
  announce(write, `workerd ${version} (Miniflare)`, url.origin);
  for (const signal of ["SIGTERM", "SIGINT"] as const)
    process.once(signal, () => {
      write(`${signal}: stopping\n`);
      mf.dispose().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
}
