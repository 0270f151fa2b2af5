/**
 * What the framework examples share (`npm run example -- --framework express|fastify|hono`): the path the
 * agent is mounted at, the application's own route beside it, the version of a framework as installed, and
 * the first lines, which name the framework and its version and the agent's URLs.
 */
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Where the application mounts the agent; its own routes are elsewhere ("/"). */
export const MOUNT = "/agent";

/** The application's own answer at "/". */
export const HOME_TEXT = `An application with the echo agent mounted at ${MOUNT}.\n`;

/** The version of an installed package, read from its package.json (some packages' exports do not list it). */
export function installedVersion(name: string): string {
  const file = new URL(`../../../../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

/** The origin a listening server is reached at. */
export const originOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Stops a node:http server: its connections closed, then the server. */
export const closing = (server: Server) => (): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export function announceMounted(framework: string, origin: string): void {
  const base = `${origin}${MOUNT}`;
  process.stdout.write(
    `echo agent in ${framework} on Node ${process.versions.node}, mounted at ${MOUNT} (A2A 1.0 and 0.3)\n` +
      `  agent card  ${base}/.well-known/agent-card.json\n` +
      `  JSON-RPC    ${base}/a2a/jsonrpc\n  HTTP+JSON   ${base}/a2a/rest\n`,
  );
}
