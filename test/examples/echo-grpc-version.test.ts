/**
 * The example agent's gRPC server checks the version before the method (issue 24 item 5): a call to a method
 * its router lacks gets VERSION_NOT_SUPPORTED when no service it serves speaks the call's `a2a-version`, and
 * UNIMPLEMENTED only when one does (runtime grpcFallback, wired in examples/echo-agent/server.ts).
 */
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import * as v03Pb from "../../generated-samples/v0.3.0/a2a_pb.js";

let agent: RunningAgent;

beforeAll(async () => {
  agent = await startEchoAgent({ only10: true });
});
afterAll(() => agent.close());

/** The error of a v0.3 GetTask, a method the 1.0-only agent does not serve, sent with `headers`. */
async function olderGetTask(headers: Record<string, string>): Promise<ConnectError> {
  const client = createClient(v03Pb.A2AService, createGrpcTransport({ baseUrl: `http://${agent.urls.grpc}` }));
  const error = await client.getTask({ name: "tasks/x" }, { headers }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

describe("the example agent's gRPC server, serving 1.0 only", () => {
  it.each([["0.5"], ["0.3"]])("answers a method it lacks at version %s with FAILED_PRECONDITION", async (version) => {
    const e = await olderGetTask({ "a2a-version": version });
    expect(e.code).toBe(Code.FailedPrecondition);
    expect(e.rawMessage).toContain(`Protocol version ${version} is not supported`);
  });

  it("answers it UNIMPLEMENTED at 1.0, the version it speaks", async () => {
    const e = await olderGetTask({ "a2a-version": "1.0" });
    expect(e.code).toBe(Code.Unimplemented);
  });
});
