/**
 * A gRPC status the server did not send is no A2A error: an answer whose grpc-status is not a status (99,
 * "abc") makes connect report INTERNAL, which the generated client throws as an A2ATransportError naming the
 * call, never as the standard InternalError the server could have sent, so a caller (resubscribe) can tell a
 * broken answer from the agent's. A valid INTERNAL the server sent is still InternalError. A raw HTTP/2 peer on
 * 127.0.0.1 answers every call with the trailers the test gives it.
 */
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, A2ATransportError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { type GrpcTrailerPeer, startGrpcTrailerPeer } from "../helpers/grpc-trailer-peer.js";

let trailers: Record<string, string> = {};
let peer: GrpcTrailerPeer;
let baseUrl = "";
beforeAll(async () => {
  peer = await startGrpcTrailerPeer(() => trailers);
  baseUrl = peer.baseUrl;
});
afterAll(() => peer.close());

const getTask = () =>
  createA2AServiceGrpcClient(createGrpcTransport({ baseUrl }), {})
    .getTask({ id: "t" })
    .then(
      () => undefined,
      (e: unknown) => e,
    );

it.each(["99", "abc", "-1"])("grpc-status %s is a transport error, not InternalError", async (status) => {
  trailers = { "grpc-status": status, "grpc-message": "broken" };
  const e = await getTask();
  expect(e).toBeInstanceOf(A2ATransportError);
  expect((e as Error).message).toContain(`GetTask: gRPC /lf.a2a.v1.A2AService/GetTask ended with INTERNAL`);
});

it("a valid INTERNAL the server sent is InternalError", async () => {
  trailers = { "grpc-status": "13", "grpc-message": "Internal error" };
  const e = await getTask();
  expect(e).toBeInstanceOf(A2AError);
  expect((e as A2AError).type).toBe("InternalError");
});
