/**
 * A v1.0 client for a card of either version (issue 11, item 4): the generated
 * clientForCard (a2a_compat.ts, createClientForCardOrOlder) takes a 1.0
 * interface wherever the card lists one, else a 0.3 one through clientForOlder.
 * Checked against a real v0.3 agent (test/helpers/v03-echo-agent.ts) on each
 * binding, a real v1.0 agent (the example echo handler) with a card listing
 * only 1.0, and a card listing 0.3 first and 1.0 second; all on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { NoUsableInterfaceError, nodeHttpListener, type Binding } from "@protoc-gen-a2a/runtime";
import { clientForCard } from "../../generated-samples/a2a_compat.js";
import { createA2AServiceHttpHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role, TaskState, type SendMessageResponse } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createEchoHandler } from "../../examples/echo-agent/echo-handler.js";
import { startV03EchoAgent, type RunningV03Agent } from "../helpers/v03-echo-agent.js";

/** A message that waits for the task's end (v0.3 configuration.blocking; without a configuration 0.3 does not wait). */
const hello = (text: string) => ({
  configuration: { returnImmediately: false },
  message: {
    messageId: crypto.randomUUID(),
    role: Role.USER,
    parts: [{ content: { case: "text" as const, value: text } }],
  },
});

/** The echoed text of a completed task, else a description of what came back. */
function echoed(res: SendMessageResponse): string {
  if (res.payload.case !== "task") return `no task: ${res.payload.case}`;
  const t = res.payload.value;
  if (t.status?.state !== TaskState.COMPLETED) return `state ${t.status?.state}`;
  const part = t.artifacts[0]?.parts[0]?.content;
  return part?.case === "text" ? part.value : "no text artifact";
}

const grpcTransport = (baseUrl: string) => createGrpcTransport({ baseUrl });

describe("clientForCard", () => {
  let v03: RunningV03Agent;
  let v10Url: string;
  let closeV10: () => Promise<void>;
  beforeAll(async () => {
    v03 = await startV03EchoAgent();
    const http = createServer(nodeHttpListener(createA2AServiceHttpHandler({ handler: createEchoHandler() })));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    v10Url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    closeV10 = () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    };
  });
  afterAll(() => Promise.all([v03?.close(), closeV10?.()]));

  it.each(["JSONRPC", "HTTP+JSON", "GRPC"] as const)(
    "falls back to the v0.3 client through the bridge when the card offers only 0.3 (%s)",
    async (binding: Binding) => {
      expect((v03.card as { protocolVersion: string }).protocolVersion).toBe("0.3.0");
      const { client, selected, bridged } = clientForCard(v03.card, { bindings: [binding], grpcTransport });
      expect(selected).toMatchObject({ binding, protocolVersion: "0.3" });
      expect(bridged).toBe(true);
      expect(echoed(await client.sendMessage(hello(`hi over ${binding}`)))).toBe(`hi over ${binding}`);
    },
  );

  it("takes the card's 1.0 interface when it lists only 1.0", async () => {
    const card = {
      name: "v1.0 only",
      supportedInterfaces: [{ url: `${v10Url}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    };
    const { client, selected, bridged } = clientForCard(card);
    expect(selected).toMatchObject({ binding: "JSONRPC", protocolVersion: "1.0", url: `${v10Url}/jsonrpc` });
    expect(bridged).toBe(false);
    expect(echoed(await client.sendMessage(hello("hi at 1.0")))).toBe("hi at 1.0");
  });

  it("prefers a 1.0 interface listed after a 0.3 one", async () => {
    const card = {
      supportedInterfaces: [
        { url: v03.urls.jsonrpc, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
        { url: `${v10Url}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      ],
    };
    const { client, selected, bridged } = clientForCard(card);
    expect(selected).toMatchObject({ binding: "HTTP+JSON", protocolVersion: "1.0" });
    expect(bridged).toBe(false);
    expect(echoed(await client.sendMessage(hello("hi, newest")))).toBe("hi, newest");
  });

  it("names both versions when the card offers neither", () => {
    const card = {
      supportedInterfaces: [{ url: "http://127.0.0.1:1/x", protocolBinding: "JSONRPC", protocolVersion: "2.0" }],
    };
    expect(() => clientForCard(card)).toThrow(NoUsableInterfaceError);
    expect(() => clientForCard(card)).toThrow(/JSONRPC, HTTP\+JSON interface at protocol version 1\.0 or 0\.3/);
  });

  it("never takes an interface whose URL is not http: or https:, whatever it would answer", () => {
    const forged = 'data:application/json,{"jsonrpc":"2.0","id":1,"result":{"id":"forged"}}';
    for (const url of [forged, "javascript:alert(1)", "file:///etc/passwd", "/relative/path", "http:no-host"]) {
      const card = { supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
      expect(() => clientForCard(card), url).toThrow(NoUsableInterfaceError);
      expect(() => clientForCard(card), url).toThrow("with an http: or https: URL");
    }
    const grpc = (url: string) => ({ supportedInterfaces: [{ url, protocolBinding: "GRPC", protocolVersion: "1.0" }] });
    const overGrpc = {
      bindings: ["GRPC" as const],
      grpcTransport: (baseUrl: string) => createGrpcTransport({ baseUrl }),
    };
    expect(() => clientForCard(grpc("javascript:alert(1)"), overGrpc)).toThrow(NoUsableInterfaceError);
    expect(clientForCard(grpc("127.0.0.1:50051"), overGrpc).selected.url).toBe("127.0.0.1:50051");
    const mixed = {
      supportedInterfaces: [
        { url: forged, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "HTTPS://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      ],
    };
    expect(clientForCard(mixed).selected.url).toBe("HTTPS://agent.example/a2a");
  });
});
