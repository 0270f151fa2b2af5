/**
 * The node:http servers and raw sockets a test file opens, closed after each of its tests: sockets destroyed,
 * then each server's connections closed and the server itself.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { afterEach } from "vitest";

export function closedAfterEach(): { readonly servers: Server[]; readonly sockets: Socket[] } {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return { servers, sockets };
}
