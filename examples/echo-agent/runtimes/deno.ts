/**
 * The echo agent's HTTP side on Deno (`npm run example -- --runtime deno`): http-side.ts through Deno.serve on
 * 127.0.0.1:PORT (default 9999). Its first line names the runtime and its version; then one line per request.
 */
import { echoFetchHandler } from "../http-side.js";
import { agentLog, announce, corsFromEnv, portFromEnv } from "./fetch-main.js";

/** What this file uses of Deno's globals. */
declare const Deno: {
  readonly version: { readonly deno: string };
  readonly env: { get(name: string): string | undefined };
  readonly stdout: { writeSync(bytes: Uint8Array): number };
  serve(
    options: { port: number; hostname: string; onListen: (addr: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
  addSignalListener(signal: "SIGTERM" | "SIGINT", handler: () => void): void;
  exit(code: number): never;
};

const encoder = new TextEncoder();
const write = (line: string) => void Deno.stdout.writeSync(encoder.encode(line));
let base = "";
const server = Deno.serve(
  {
    port: portFromEnv(Deno.env.get("PORT")),
    hostname: "127.0.0.1",
    onListen: (addr) => {
      base = `http://127.0.0.1:${addr.port}`;
      announce(write, `Deno ${Deno.version.deno}`, base);
    },
  },
  echoFetchHandler({ base: () => base, log: agentLog(write), ...corsFromEnv(Deno.env.get("CORS_ORIGINS")) }),
);
for (const signal of ["SIGTERM", "SIGINT"] as const)
  Deno.addSignalListener(signal, () => {
    write(`${signal}: stopping\n`);
    void server.shutdown().then(() => Deno.exit(0));
  });
