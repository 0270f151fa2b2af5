/**
 * The example agent's log (logging.ts) under requests that carry line breaks and terminal escapes: a task id
 * with CR, LF, ESC, NEL, U+2028 (JSON-RPC, HTTP+JSON with a percent-encoded path, gRPC), and an A2A-Version
 * header with the C1 controls node:http lets through (obs-text). Each request gives exactly one request line
 * and at most one error line, none holding a control character, with the values escaped and readable.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeHandlerError, logValue } from "../../examples/echo-agent/logging.js";
import { type RunningAgent, startEchoAgent } from "../../examples/echo-agent/server.js";
import { createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";

/** What may never stand in a log line: C0 but HTAB... HTAB too, DEL, C1, line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these characters
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const HOSTILE = "t\r\nPOST /forged v1.0 200 0.1ms\u001b[2J\u0085x\u2028y";
const ESCAPED = "t\\r\\nPOST /forged v1.0 200 0.1ms\\x1b[2J\\x85x\\u2028y";

let agent: RunningAgent;
const requests: string[] = [];
const errors: string[] = [];

beforeAll(async () => {
  agent = await startEchoAgent({
    log: { request: (line) => void requests.push(line), error: (line) => void errors.push(line) },
  });
});
afterAll(() => agent?.close());

/** Runs the request, then waits for its request line (written on the response's 'finish'). */
async function logged(run: () => Promise<unknown>): Promise<{ requests: string[]; errors: string[] }> {
  const [r, e] = [requests.length, errors.length];
  await run().catch(() => undefined);
  for (let i = 0; i < 300 && requests.length === r; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return { requests: requests.slice(r), errors: errors.slice(e) };
}

function expectSafe(lines: readonly string[]): void {
  for (const line of lines) expect(UNSAFE.test(line), JSON.stringify(line)).toBe(false);
}

describe("the example's log under hostile request values", () => {
  it("a JSON-RPC GetTask whose task id holds CR, LF, ESC, NEL and U+2028: one line each, escaped", async () => {
    const client = createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc });
    const got = await logged(() => client.getTask({ id: HOSTILE }));
    expect(got.requests).toHaveLength(1);
    expect(got.requests[0]).toMatch(/^POST \/a2a\/jsonrpc v1\.0 200 \d+\.\dms$/);
    expect(got.errors).toEqual([`handler error in GetTask: TaskNotFoundError: Task ${ESCAPED} not found`]);
    expectSafe([...got.requests, ...got.errors]);
  });

  it("an HTTP+JSON GetTask with the task id percent-encoded in its path", async () => {
    const path = `/a2a/rest/tasks/${encodeURIComponent(HOSTILE)}`;
    const got = await logged(
      () =>
        new Promise((resolve, reject) => {
          const req = httpRequest(`${agent.urls.rest.replace(/\/a2a\/rest$/, "")}${path}`, {
            headers: { "A2A-Version": "1.0" },
          });
          req.on("response", (res) => res.resume().on("end", resolve));
          req.on("error", reject);
          req.end();
        }),
    );
    expect(got.requests).toEqual([
      expect.stringMatching(/^GET \/a2a\/rest\/tasks\/t%0D%0APOST%20%2Fforged%20\S+ v1\.0 404 /),
    ]);
    expect(got.errors).toEqual([`handler error in GetTask: TaskNotFoundError: Task ${ESCAPED} not found`]);
    expectSafe([...got.requests, ...got.errors]);
  });

  it("a gRPC GetTask with the hostile task id", async () => {
    const client = createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` }), {});
    const got = await logged(() => client.getTask({ id: HOSTILE }));
    expect(got.requests).toEqual([expect.stringMatching(/^gRPC \/lf\.a2a\.v1\.A2AService\/GetTask v1\.0 NotFound /)]);
    expect(got.errors).toEqual([`handler error in GetTask: TaskNotFoundError: Task ${ESCAPED} not found`]);
    expectSafe([...got.requests, ...got.errors]);
  });

  it("an A2A-Version header holding the C1 controls NEL and CSI (obs-text node:http accepts)", async () => {
    const port = Number(new URL(agent.urls.card).port);
    const head =
      "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
      "A2A-Version: 1.0\x85forged\x9b31m\r\n\r\n";
    const got = await logged(
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect(port, "127.0.0.1", () => socket.write(Buffer.from(head, "latin1")));
          socket.on("data", () => undefined);
          socket.on("close", () => resolve());
          socket.on("error", reject);
        }),
    );
    expect(got.requests).toEqual([
      expect.stringMatching(/^GET \/\.well-known\/agent-card\.json v1\.0\\x85forged\\x9b31m \d{3} \d+\.\dms$/),
    ]);
    expectSafe(got.requests);
  });
});

describe("logValue and describeHandlerError", () => {
  it("escapes backslashes, controls, separators, bidi controls and lone surrogates; keeps the rest", () => {
    expect(logValue("plain /a2a/rest v1.0")).toBe("plain /a2a/rest v1.0");
    expect(logValue("a\\n")).toBe("a\\\\n");
    expect(logValue("\t\u0000\u007f\u009b")).toBe("\\t\\x00\\x7f\\x9b");
    expect(logValue("\u202eevil\u2066\u2029")).toBe("\\u202eevil\\u2066\\u2029");
    expect(logValue("\ud800 é ✓ 😀")).toBe("\\ud800 é ✓ 😀");
  });

  it("keeps a stack's frames on their lines and escapes its first line", () => {
    const line = describeHandlerError("Send\nMessage", new Error(`boom ${HOSTILE}`));
    const [first, ...frames] = line.split("\n");
    expect(first).toBe(`handler error in Send\\nMessage: Error: boom ${ESCAPED}`);
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/^ {4}at /);
    expect(describeHandlerError("GetTask", `x\ny`)).toBe("handler error in GetTask: x\\ny");
  });
});
