/**
 * Only a gRPC transport can bound the messages it reads (connect's readMaxBytes, 4 GiB by default, after
 * decompression), so a client made for a card hands its maxResponseBytes (default 64 MiB) to the grpcTransport
 * factory as `readMaxBytes`. A raw HTTP/2 peer on 127.0.0.1 answers GetTask with a gzip frame of a few KiB
 * that inflates to a 2 MiB Task: a client that takes 1 MiB refuses it with RESOURCE_EXHAUSTED, never holding
 * it; one that takes 4 MiB reads it.
 */
import { createServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2ATransportError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceClientForCard } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { TaskSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

const MIB = 1 << 20;
const inflated = toBinary(TaskSchema, create(TaskSchema, { id: "t", contextId: "x".repeat(2 * MIB) }));
const frame = (() => {
  const zipped = gzipSync(inflated, { level: 9 });
  const head = Buffer.alloc(5);
  head[0] = 1; // compressed
  head.writeUInt32BE(zipped.length, 1);
  return Buffer.concat([head, zipped]);
})();

const peer = createServer();
let card: unknown;
beforeAll(async () => {
  peer.on("stream", (stream) => {
    stream.on("data", () => {});
    stream.on("end", () => {
      const headers = { ":status": 200, "content-type": "application/grpc", "grpc-encoding": "gzip" };
      stream.respond(headers, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(frame);
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  card = {
    name: "a",
    description: "a gRPC agent",
    version: "1",
    supportedInterfaces: [{ url, protocolBinding: "GRPC", protocolVersion: "1.0" }],
  };
});
afterAll(() => peer.close());

/** The client for the card, and the readMaxBytes its grpcTransport factory was given. */
function clientFor(maxResponseBytes?: number) {
  const given: number[] = [];
  const grpcTransport = (baseUrl: string, _tls: unknown, readMaxBytes: number) => {
    given.push(readMaxBytes);
    return createGrpcTransport({ baseUrl, readMaxBytes });
  };
  const options = maxResponseBytes === undefined ? { grpcTransport } : { grpcTransport, maxResponseBytes };
  return { client: createA2AServiceClientForCard(card, options).client, given };
}

describe("a gRPC client made for a card bounds the messages it reads", () => {
  it("gives the factory maxResponseBytes, 64 MiB by default", () => {
    expect(clientFor().given).toEqual([64 * MIB]);
    expect(clientFor(MIB).given).toEqual([MIB]);
  });

  it(`refuses a ${frame.length}-byte gzip frame that inflates past maxResponseBytes`, async () => {
    const e = await clientFor(MIB)
      .client.getTask({ id: "t" })
      .then(
        () => undefined,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(A2ATransportError);
    expect(String((e as Error).message)).toMatch(/resource_exhausted|RESOURCE_EXHAUSTED/);
  });

  it("reads the same answer under the bound", async () => {
    const task = await clientFor(4 * MIB).client.getTask({ id: "t" });
    expect(task.contextId.length).toBe(2 * MIB);
  });
});
