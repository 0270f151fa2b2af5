/**
 * A transport error carries the answer's headers and the wait the answer asked for: `retryAfterMs` from a
 * Retry-After in seconds or as an HTTP date (JSON-RPC and HTTP+JSON), or from gRPC's grpc-retry-pushback-ms.
 * A resubscribing stream waits at least that long before it tries again (after 429 too), and gives up at once,
 * with that error, when the answer asks for more than maxRetryAfterMs (a negative gRPC pushback: never retry).
 * Peers on 127.0.0.1 answer what each test sets.
 */
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2ATransportError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { type GrpcTrailerPeer, startGrpcTrailerPeer } from "../helpers/grpc-trailer-peer.js";
import { type HttpPeer, type PeerAnswer, startHttpPeer } from "../helpers/http-peer.js";

/** Each request the HTTP peer gets is answered by the next of these; the last one repeats. */
type Answer = PeerAnswer;
let answers: Answer[] = [];
let arrivals: number[] = [];

const unavailable =
  (retryAfter?: string, status = 503): Answer =>
  (_req, res) => {
    res.writeHead(status, {
      "content-type": "text/html",
      ...(retryAfter !== undefined ? { "retry-after": retryAfter } : {}),
    });
    res.end("<html>busy</html>");
  };

/** A stream of one Task event in `state`, on either binding; it ends there. */
const stream =
  (state: string): Answer =>
  (req, res, body) => {
    const task = { id: "t1", contextId: "c1", status: { state } };
    const rpc = req.url === "/rpc";
    const event = rpc ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: unknown }).id, result: { task } } : { task };
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`data: ${JSON.stringify(event)}\n\n`);
  };

let peer: HttpPeer;
let url = "";
beforeAll(async () => {
  peer = await startHttpPeer((req, res, body) => {
    arrivals.push(performance.now());
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    answer(req, res, body);
  });
  url = peer.url;
});
afterAll(() => peer.close());

const bindings = {
  "JSON-RPC": (resubscribe?: object) =>
    createA2AServiceJsonRpcClient({ url: `${url}/rpc`, ...(resubscribe ? { resubscribe } : {}) }),
  "HTTP+JSON": (resubscribe?: object) =>
    createA2AServiceRestClient({ url: `${url}/rest`, ...(resubscribe ? { resubscribe } : {}) }),
};

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/** Reads a stream to its end; what it threw, if anything. */
const drain = (events: AsyncIterable<unknown>) =>
  failureOf(
    (async () => {
      for await (const _ of events) {
        // the events themselves are not looked at
      }
    })(),
  );

describe.each(Object.keys(bindings) as (keyof typeof bindings)[])("%s", (binding) => {
  const client = bindings[binding];

  it("an answer's Retry-After in seconds is retryAfterMs, its headers kept", async () => {
    answers = [unavailable("7")];
    const e = await failureOf(client().getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(A2ATransportError);
    const t = e as A2ATransportError;
    expect(t.status).toBe(503);
    expect(t.retryAfterMs).toBe(7000);
    expect(t.headers?.get("content-type")).toBe("text/html");
  });

  it("a Retry-After as an HTTP date is the wait until then", async () => {
    answers = [unavailable(new Date(Date.now() + 30_000).toUTCString())];
    const t = (await failureOf(client().getTask({ id: "t1" }))) as A2ATransportError;
    // The date has whole seconds: the wait is up to a second short of 30 s.
    expect(t.retryAfterMs).toBeGreaterThan(28_000);
    expect(t.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it("no Retry-After, or one that is no delay, is no retryAfterMs", async () => {
    for (const header of [undefined, "soon", "-5"]) {
      answers = [unavailable(header)];
      const t = (await failureOf(client().getTask({ id: "t1" }))) as A2ATransportError;
      expect(t).toBeInstanceOf(A2ATransportError);
      expect(t.retryAfterMs).toBeUndefined();
    }
  });

  it("a resubscription after 429 waits at least what the answer asked for", async () => {
    answers = [stream("TASK_STATE_WORKING"), unavailable("1", 429), stream("TASK_STATE_COMPLETED")];
    arrivals = [];
    const e = await drain(client({ attempts: 3, backoffMs: 1 }).subscribeToTask({ id: "t1" }));
    expect(e).toBeUndefined();
    expect(arrivals).toHaveLength(3);
    // backoffMs alone would have waited 2 ms before the third request.
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(950);
  });

  it("a resubscription asked to wait past maxRetryAfterMs ends with that answer's error", async () => {
    answers = [stream("TASK_STATE_WORKING"), unavailable("3600")];
    arrivals = [];
    const e = await drain(client({ attempts: 3, backoffMs: 1 }).subscribeToTask({ id: "t1" }));
    expect(e).toBeInstanceOf(A2ATransportError);
    expect((e as A2ATransportError).retryAfterMs).toBe(3_600_000);
    expect(arrivals).toHaveLength(2);
  });
});

describe("gRPC", () => {
  let grpcPeer: GrpcTrailerPeer;
  let baseUrl = "";
  let pushback = "1500";
  beforeAll(async () => {
    grpcPeer = await startGrpcTrailerPeer(() => ({
      "grpc-status": "14",
      "grpc-message": "busy",
      "grpc-retry-pushback-ms": pushback,
    }));
    baseUrl = grpcPeer.baseUrl;
  });
  afterAll(() => grpcPeer.close());

  it("grpc-retry-pushback-ms is retryAfterMs, the metadata kept", async () => {
    const client = createA2AServiceGrpcClient(createGrpcTransport({ baseUrl }), {});
    const t = (await failureOf(client.getTask({ id: "t1" }))) as A2ATransportError;
    expect(t).toBeInstanceOf(A2ATransportError);
    expect(t.grpcStatus).toBe("UNAVAILABLE");
    expect(t.retryAfterMs).toBe(1500);
    expect(t.headers?.get("grpc-message")).toBe("busy");
  });

  it("a negative pushback (gRFC A6: do not retry) is an endless wait", async () => {
    pushback = "-1";
    const client = createA2AServiceGrpcClient(createGrpcTransport({ baseUrl }), {});
    const t = (await failureOf(client.getTask({ id: "t1" }))) as A2ATransportError;
    expect(t.retryAfterMs).toBe(Number.POSITIVE_INFINITY);
  });
});
