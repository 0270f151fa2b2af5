/**
 * TLS and mutual TLS (issue 25, items 2 and 6), with a certificate authority
 * the test makes (helpers/tls-ca.ts): an A2A server on node:https and gRPC on
 * an HTTP/2 TLS server, both asking for client certificates. A card whose
 * requirements are mutual TLS or an API key admits a client whose
 * certificate the CA signed (the principal is its subject CN, scheme mtls),
 * refuses one signed by another CA and one without a certificate when it
 * has no key either; strictTransportSecurity puts Strict-Transport-Security
 * on every answer, the agent card's included.
 */
import { request as httpsRequest, createServer as createHttpsServer, type Server } from "node:https";
import { createSecureServer, type Http2SecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";

import { grpcContextValues, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { apiKeyTable, authenticate, certificateSubject } from "@protoc-gen-a2a/runtime/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A2AServiceV1_0,
  type A2AServiceHandler,
  createA2AServiceHttpHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { a2aServiceGrpcRoutes } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createTestPki, type PemPair, type TestPki } from "../helpers/tls-ca.js";

const card = {
  securitySchemes: {
    mtls: { mtlsSecurityScheme: {} },
    key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
  },
  securityRequirements: [{ schemes: { mtls: { list: [] } } }, { schemes: { key: { list: [] } } }],
};

const handler: A2AServiceHandler = {
  getTask: async ({ id }, context) => ({
    id,
    contextId: `${context.principal?.id}/${context.principal?.scheme}`,
    status: { state: TaskState.COMPLETED },
  }),
};

let pki: TestPki;
let https: Server;
let grpc: Http2SecureServer;

const listen = (server: Server | Http2SecureServer) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

beforeAll(async () => {
  pki = createTestPki();
  const interceptors = [
    authenticate({ card, verifiers: { mtls: certificateSubject(), key: apiKeyTable({ k1: "keyed" }) } }),
  ];
  const tls = { ...pki.server, ca: pki.ca, requestCert: true, rejectUnauthorized: false };
  const http = createA2AServiceHttpHandler({
    handler,
    interceptors,
    agentCard: () => card,
    strictTransportSecurity: { maxAgeSec: 31536000, includeSubDomains: true },
  });
  https = createHttpsServer(tls, nodeHttpListener(http));
  grpc = createSecureServer(
    { ...tls, allowHTTP1: false },
    connectNodeAdapter({
      routes: a2aServiceGrpcRoutes({ handler, interceptors }),
      grpc: true,
      contextValues: grpcContextValues,
    }),
  );
  await Promise.all([listen(https), listen(grpc)]);
});

afterAll(() => {
  https.closeAllConnections();
  https.close();
  grpc.close();
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** GET over node:https, trusting the test CA, with a client certificate when given. */
function get(path: string, client?: PemPair, headers: Record<string, string> = {}): Promise<Answer> {
  const port = (https.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        ca: pki.ca,
        ...client,
        headers: { "a2a-version": "1.0", ...headers },
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("HTTPS", () => {
  it("admits a client certificate the CA signed, as its subject CN", async () => {
    const res = await get("/rest/tasks/t1", pki.client("alice"));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).contextId).toBe("alice/mtls");
  });

  it("refuses a certificate of another CA, and no certificate, unless another requirement holds", async () => {
    for (const client of [pki.foreignClient("mallory"), undefined]) {
      const res = await get("/rest/tasks/t1", client);
      expect(res.status).toBe(401);
      expect(res.headers["www-authenticate"]).toContain('MutualTLS realm="a2a"');
    }
    const keyed = await get("/rest/tasks/t1", undefined, { "x-api-key": "k1" });
    expect(JSON.parse(keyed.body).contextId).toBe("keyed/key");
  });

  it("sends Strict-Transport-Security on calls, refusals and the agent card", async () => {
    for (const res of [
      await get("/rest/tasks/t1", pki.client("bob")),
      await get("/rest/tasks/t1"),
      await get("/.well-known/agent-card.json"),
    ]) {
      expect(res.headers["strict-transport-security"]).toBe("max-age=31536000; includeSubDomains");
    }
  });
});

describe("gRPC over TLS", () => {
  const client = (pair?: PemPair) => {
    const port = (grpc.address() as AddressInfo).port;
    const transport = createGrpcTransport({
      baseUrl: `https://127.0.0.1:${port}`,
      nodeOptions: { ca: pki.ca, ...pair },
    });
    return createClient(A2AServiceV1_0.service, transport);
  };

  it("admits a client certificate the CA signed, and refuses another CA's", async () => {
    const task = await client(pki.client("carol")).getTask({ id: "g" }, { headers: { "a2a-version": "1.0" } });
    expect(task.contextId).toBe("carol/mtls");
    await expect(
      client(pki.foreignClient("mallory")).getTask({ id: "g" }, { headers: { "a2a-version": "1.0" } }),
    ).rejects.toMatchObject({ code: 16 });
    await expect(client().getTask({ id: "g" }, { headers: { "a2a-version": "1.0" } })).rejects.toMatchObject({
      code: 16,
    });
  });
});
