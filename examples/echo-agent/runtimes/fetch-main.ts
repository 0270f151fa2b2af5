/**
 * What the runtime entries (bun.ts, deno.ts, worker.ts) share: the port from PORT, the log lines (as
 * main.ts writes them), and the first lines, which name the runtime and its version and the URLs.
 */
import type { AgentLog } from "../logging.js";

/** PORT as a number (default 9999); anything but a port number throws, naming it. */
export function portFromEnv(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 9999;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port <= 65535)) throw new RangeError(`echo agent: PORT=${JSON.stringify(raw)} is not a port number (0-65535)`);
  return port;
}

/** CORS_ORIGINS: "*" or origins separated by commas; unset or empty: none. */
export function corsFromEnv(raw: string | undefined): { corsOrigins?: readonly string[] | "*" } {
  const value = raw?.trim() ?? "";
  if (value === "") return {};
  return {
    corsOrigins:
      value === "*"
        ? "*"
        : value
            .split(",")
            .map((o) => o.trim())
            .filter((o) => o !== ""),
  };
}

/** Request lines and handler errors, each a line of `write`, errors after the agent's prefix. */
export const agentLog = (write: (text: string) => void): AgentLog => ({
  request: (line) => write(`${line}\n`),
  error: (line) => write(`echo agent: ${line}\n`),
});

/** The first lines: the runtime, then the URLs (no gRPC here). */
export function announce(write: (text: string) => void, runtime: string, base: string): void {
  write(
    `echo agent on ${runtime} (A2A 1.0 and 0.3: A2A-Version picks)\n` +
      `  agent card  ${base}/.well-known/agent-card.json\n` +
      `  JSON-RPC    ${base}/a2a/jsonrpc\n  HTTP+JSON   ${base}/a2a/rest\n`,
  );
}
