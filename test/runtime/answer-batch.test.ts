/**
 * node-listener.ts ends small answers at the end of the event loop's turn, those of one turn together
 * (EndBatch); an answer whose client reset the connection in that turn closes unfinished and aborts the
 * request's signal; and an end that throws costs only its own connection, with a process warning. Real
 * node:http servers on 127.0.0.1 and raw sockets, which write their requests in one go so that the server reads
 * them in one turn.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { type CoreHandler, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { describe, expect, it, vi } from "vitest";
import { closedAfterEach } from "../helpers/closed-after-each.js";

const { servers, sockets } = closedAfterEach();

const ok: CoreHandler = async (req) => ({
  status: 200,
  headers: { "content-type": "text/plain" },
  body: `ok ${req.path}`,
});

interface Served {
  readonly port: number;
  /** Connections the server has taken so far. */
  readonly accepted: () => number;
}

/** A server on nodeHttpListener(handler); `spy` sees each request and its response first. */
async function serve(
  spy: (req: IncomingMessage, res: ServerResponse) => void,
  handler: CoreHandler = ok,
): Promise<Served> {
  const listener = nodeHttpListener(handler);
  const server = createServer(listener);
  server.prependListener("request", spy);
  let accepted = 0;
  server.on("connection", () => accepted++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, accepted: () => accepted };
}

/**
 * Opens a connection per path and waits until the server has taken them all, then writes a POST to each in one
 * synchronous loop, so that the server finds them all readable at once; resolves to what each read.
 */
async function askTogether({ port, accepted }: Served, paths: readonly string[]): Promise<string[]> {
  const before = accepted();
  const opened = paths.map(() => connect(port, "127.0.0.1"));
  sockets.push(...opened);
  await Promise.all(opened.map((s) => new Promise((resolve) => s.once("connect", resolve))));
  await vi.waitFor(() => expect(accepted() - before).toBe(paths.length));
  const answers = opened.map(
    (s) =>
      new Promise<string>((resolve) => {
        let text = "";
        s.on("data", (c: Buffer) => {
          text += c.toString("latin1");
          if (/\r\n\r\nok \S+$/.test(text)) resolve(text);
        });
        s.on("close", () => resolve(text));
      }),
  );
  paths.forEach((path, i) => {
    opened[i]!.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi`);
  });
  return Promise.all(answers);
}

describe("small answers end at the end of the turn (EndBatch)", () => {
  it("ends the answers of requests read in one turn together, after all of them were read", async () => {
    const log: string[] = [];
    const served = await serve((_req, res) => {
      log.push("request");
      const end = res.end.bind(res) as (body: unknown) => ServerResponse;
      res.end = ((body: unknown) => {
        log.push("end");
        return end(body);
      }) as ServerResponse["end"];
    });
    let most = 0;
    for (let round = 0; round < 5; round++) {
      log.length = 0;
      const paths = Array.from({ length: 20 }, (_, i) => `/r${round}/${i}`);
      const answers = await askTogether(served, paths);
      expect(answers).toEqual(
        paths.map((path) => expect.stringMatching(new RegExp(`^HTTP/1.1 200 OK[^]*ok ${path}$`))),
      );
      // The longest run of answers ended one after the other, with no request read between them.
      let run = 0;
      for (const entry of log) {
        run = entry === "end" ? run + 1 : 0;
        most = Math.max(most, run);
      }
      expect(log.filter((e) => e === "end")).toHaveLength(20);
    }
    // Ended as soon as made, each answer would end before the next request of the turn is read: runs of one.
    expect(most).toBeGreaterThan(1);
  });

  it("closes unfinished, and aborts the signal of, an answer whose client reset the connection that turn", async () => {
    let aborted = 0;
    const closes: boolean[] = [];
    const served = await serve(
      (_req, res) => res.on("close", () => closes.push(res.writableFinished)),
      async (req) => {
        req.signal.addEventListener("abort", () => aborted++);
        return ok(req);
      },
    );
    for (let i = 0; i < 20; i++) {
      const socket = connect(served.port, "127.0.0.1");
      sockets.push(socket);
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write("POST /r HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi");
      socket.resetAndDestroy();
    }
    await vi.waitFor(() => expect(closes).toHaveLength(20));
    // Ended into the dead socket, it would close as finished, with no abort and no 'finish'.
    expect(closes).toEqual(Array(20).fill(false));
    expect(aborted).toBe(20);
  });

  it("destroys the connection of an answer whose end throws, and ends the others of its turn", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const served = await serve((req, res) => {
        if (req.url === "/boom") {
          res.end = (() => {
            throw new Error("end failed");
          }) as ServerResponse["end"];
        }
      });
      const answers = await askTogether(served, ["/a", "/boom", "/b"]);
      expect(answers[0]).toMatch(/\r\n\r\nok \/a$/);
      expect(answers[1]).toBe("");
      expect(answers[2]).toMatch(/\r\n\r\nok \/b$/);
      await vi.waitFor(() =>
        expect(warnings.map((w) => [w.name, w.message])).toContainEqual([
          "A2AAnswerEnd",
          "nodeHttpListener: ending an answer threw, so its connection was closed: end failed",
        ]),
      );
    } finally {
      process.off("warning", onWarning);
    }
  }, 10_000);
});
