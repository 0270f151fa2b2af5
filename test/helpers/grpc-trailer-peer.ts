/**
 * A raw HTTP/2 peer on 127.0.0.1 that answers every gRPC call with no message and the trailers `trailers()`
 * gives at that moment, for tests of what a client makes of a status and its metadata. `baseUrl` is its
 * origin; `close()` stops it.
 */
import { createServer } from "node:http2";
import type { AddressInfo } from "node:net";

export interface GrpcTrailerPeer {
  readonly baseUrl: string;
  close(): void;
}

export async function startGrpcTrailerPeer(trailers: () => Record<string, string>): Promise<GrpcTrailerPeer> {
  const peer = createServer();
  peer.on("stream", (stream) => {
    stream.on("data", () => {});
    stream.on("end", () => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers(trailers()));
      stream.end();
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${(peer.address() as AddressInfo).port}`, close: () => peer.close() };
}
