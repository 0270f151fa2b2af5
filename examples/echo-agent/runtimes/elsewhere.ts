/**
 * `npm run example -- --runtime bun|deno|workerd|node` and `-- --framework express|fastify|hono`: which runtime
 * runs the agent's HTTP side, or which framework (on Node) it is mounted in, from the command line; and
 * running it on Bun, Deno or workerd (each from npm, under node_modules/.bin) as a child process sharing this
 * one's standard streams and environment, signals passed on, its exit code taken.
 * Node (the default) runs main.ts's own agent, gRPC and PostgreSQL included.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const RUNTIMES = ["node", "bun", "deno", "workerd"] as const;
export type Runtime = (typeof RUNTIMES)[number];
export const FRAMEWORKS = ["express", "fastify", "hono"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** What the command line asks for: a runtime (default node) and, on Node, a framework to mount the agent in. */
export interface Choice {
  readonly runtime: Runtime;
  readonly framework?: Framework;
}

/** The value of `--name value` or `--name=value`: undefined when absent, "" when the value is missing. */
function option(args: readonly string[], name: string): string | undefined {
  const at = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (at < 0) return undefined;
  const arg = args[at]!;
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : (args[at + 1] ?? "");
}

/** The choice `--runtime` and `--framework` make, or the line that says why the arguments are wrong. */
export function choiceFromArgs(args: readonly string[]): Choice | { problem: string } {
  const r = option(args, "--runtime");
  const f = option(args, "--framework");
  const runtime = r === undefined ? "node" : RUNTIMES.find((x) => x === r);
  if (!runtime) return { problem: `--runtime ${r || "(missing)"}: one of ${RUNTIMES.join(", ")}` };
  if (f === undefined) return { runtime };
  const framework = FRAMEWORKS.find((x) => x === f);
  if (!framework) return { problem: `--framework ${f || "(missing)"}: one of ${FRAMEWORKS.join(", ")}` };
  if (runtime !== "node") return { problem: `--framework ${framework} runs on Node: leave out --runtime ${runtime}` };
  return { runtime, framework };
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
