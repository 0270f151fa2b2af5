/**
 * A client that reads nothing of its answer: node-listener.ts destroys the connection once no 'drain' has
 * come for stallTimeoutMs, for a large text answer and for a stream, and a client that reads slowly gets the
 * whole answer. The answers are 32 MiB, more than the loopback socket buffers take, so the server's side
 * really waits for the client. Real node:http servers and raw sockets on 127.0.0.1.
 */
import { createServer, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { type CoreHandler, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { describe, expect, it } from "vitest";
import { closedAfterEach } from "../helpers/closed-after-each.js";

const BIG = 32 * 1024 * 1024;
const { servers, sockets } = closedAfterEach();

/** A server answering every request with `handler`, and a promise of how its first answer ended. */
async function serve(handler: CoreHandler, stallTimeoutMs: number) {
  const listener = nodeHttpListener(handler, { stallTimeoutMs });
  let ended: (how: "finished" | "destroyed") => void = () => {};
  const answerEnded = new Promise<"finished" | "destroyed">((resolve) => (ended = resolve));
  const server = createServer((req, res: ServerResponse) => {
    res.on("close", () => ended(res.writableFinished ? "finished" : "destroyed"));
    listener(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, answerEnded };
}

/** Sends a GET on a raw socket and reads nothing of the answer, or reads it slowly. */
function askAndRead(port: number, read: "nothing" | "slowly"): { socket: Socket; received: () => number } {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  let received = 0;
  socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  if (read === "nothing") socket.pause();
  else {
    // A pause of 10 ms after each chunk: far slower than the server writes, but always some progress.
    socket.on("data", (c: Buffer) => {
      received += c.length;
      socket.pause();
      setTimeout(() => socket.resume(), 10);
    });
  }
  return { socket, received: () => received };
}

const text: CoreHandler = async () => ({
  status: 200,
  headers: { "content-type": "text/plain" },
  body: "x".repeat(BIG),
});

async function* events(): AsyncIterable<string> {
  const event = `data: ${"e".repeat(1024 * 1024)}\n\n`;
  for (let i = 0; i < 32; i++) yield event;
}
const stream: CoreHandler = async () => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  body: events(),
});

describe("a client that reads nothing of its answer", () => {
  it.each([
    ["a large text answer", text],
    ["a stream", stream],
  ])(
    "is cut off after stallTimeoutMs: %s",
    async (_name, handler) => {
      const { port, answerEnded } = await serve(handler, 300);
      askAndRead(port, "nothing");
      expect(await answerEnded).toBe("destroyed");
    },
    20_000,
  );

  it("a client that reads slowly gets the whole answer", async () => {
    // The kernel opens the window again only once the reader has taken a good part of its buffer, and a busy
    // machine may hold this process's timers: the answer takes longer than the 3 s the stall is allowed.
    const { port, answerEnded } = await serve(text, 3000);
    const { received } = askAndRead(port, "slowly");
    expect(await answerEnded).toBe("finished");
    await expect.poll(received, { timeout: 20_000 }).toBeGreaterThan(BIG);
  }, 60_000);

  it.each([0, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31])("refuses a stallTimeoutMs of %s", (ms) => {
    expect(() => nodeHttpListener(text, { stallTimeoutMs: ms })).toThrow(
      `nodeHttpListener: stallTimeoutMs must be > 0 and at most ${2 ** 31 - 1}; got ${ms}`,
    );
  });
});
