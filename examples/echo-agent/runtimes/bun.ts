/**
 * The echo agent's HTTP side on Bun (`npm run example -- --runtime bun`): http-side.ts through Bun.serve on
 * 127.0.0.1:PORT (default 9999). Its first line names the runtime and its version; then one line per request.
 */
import { echoFetchHandler } from "../http-side.js";
import { agentLog, announce, corsFromEnv, portFromEnv } from "./fetch-main.js";

/** What this file uses of Bun's globals. */
declare const Bun: {
  readonly version: string;
  serve(options: { port: number; hostname: string; fetch: (request: Request) => Promise<Response> }): {
    readonly port: number;
    stop(closeActive?: boolean): void;
  };
};

const port = portFromEnv(process.env["PORT"]);
let base = "";
const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  fetch: echoFetchHandler({
    base: () => base,
    log: agentLog((line) => process.stdout.write(line)),
    ...corsFromEnv(process.env["CORS_ORIGINS"]),
  }),
});
base = `http://127.0.0.1:${server.port}`;
announce((line) => process.stdout.write(line), `Bun ${Bun.version}`, base);
for (const signal of ["SIGTERM", "SIGINT"] as const)
  process.once(signal, () => {
    process.stdout.write(`${signal}: stopping\n`);
    server.stop(true);
    process.exit(0);
  });
