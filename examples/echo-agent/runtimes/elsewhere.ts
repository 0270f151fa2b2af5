/**
 * `npm run example -- --runtime bun|deno|workerd|node`: which runtime runs the agent's HTTP side, from the
 * command line; and running it on Bun, Deno or workerd (each from npm, under node_modules/.bin) as a child
 * process sharing this one's standard streams and environment, signals passed on, its exit code taken.
 * Node (the default) runs main.ts's own agent, gRPC and PostgreSQL included.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const RUNTIMES = ["node", "bun", "deno", "workerd"] as const;
export type Runtime = (typeof RUNTIMES)[number];

/** The runtime `--runtime` names (default node), or the line that says why the arguments are wrong. */
export function runtimeFromArgs(args: readonly string[]): { runtime: Runtime } | { problem: string } {
  const at = args.findIndex((a) => a === "--runtime" || a.startsWith("--runtime="));
  if (at < 0) return { runtime: "node" };
  const arg = args[at]!;
  const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[at + 1];
  const runtime = RUNTIMES.find((r) => r === value);
  return runtime ? { runtime } : { problem: `--runtime ${value ?? "(missing)"}: one of ${RUNTIMES.join(", ")}` };
}

const binary = (name: string) => fileURLToPath(new URL(`../../../../node_modules/.bin/${name}`, import.meta.url));
const entry = (name: string) => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

/** The command that runs the agent on Bun or Deno. */
function command(runtime: "bun" | "deno"): [string, string[]] {
  if (runtime === "bun") return [binary("bun"), [entry("bun")]];
  // Packages from node_modules as they are (no download); --unstable-no-legacy-abort: a request's signal
  // aborts only when its client goes away, as on the other runtimes.
  const flags = ["--allow-net", "--allow-env", "--allow-read", "--node-modules-dir=manual", "--cached-only"];
  return [binary("deno"), ["run", ...flags, "--unstable-no-legacy-abort", entry("deno")]];
}

/** Runs the agent on Bun or Deno until it exits; resolves to its exit code. */
export function runChild(runtime: "bun" | "deno"): Promise<number> {
  const [file, args] = command(runtime);
  const env = { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };
  const child = spawn(file, args, { stdio: "inherit", env });
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => {
    child.once("error", (e) => {
      process.stderr.write(`echo agent: cannot start ${runtime} (${file}): ${e.message}\n`);
      resolve(1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 0 : 1)));
  });
}
