/**
 * A scripted HTTP peer on 127.0.0.1 for client tests: every request is read to its end, then handed to
 * `answer` with its body as text. `url` is the peer's origin; `close()` drops its connections and stops it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type PeerAnswer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface HttpPeer {
  readonly url: string;
  close(): void;
}

export async function startHttpPeer(answer: PeerAnswer): Promise<HttpPeer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => answer(req, res, Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
