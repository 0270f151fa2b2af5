/**
 * Interceptors and authentication from the agent card (issue 25, items 1
 * and 2), on real servers on 127.0.0.1: JSON-RPC, HTTP+JSON and gRPC at v1.0,
 * and v0.3 JSON-RPC through the version bridge. An interceptor sees the
 * operation, the typed request, headers, binding and version; it can answer,
 * refuse and change the answer, for unary calls and streams, and its context
 * values reach the handler. authenticate() admits a call by the card's
 * requirements (API key in header, query or cookie; HTTP Basic; Bearer JWT
 * against a JWKS; scopes) and refuses with 401 + WWW-Authenticate, 403, gRPC
 * UNAUTHENTICATED / PERMISSION_DENIED and the access-errors JSON-RPC codes.
 */
import { createServer, type Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { isMessage } from "@bufbuild/protobuf";
import { Code, type ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AError, createContextKey, type Interceptor, nodeHttpListener } from "@protoc-gen-a2a/runtime";
import {
  apiKeyTable,
  authenticate,
  AuthSetupError,
  jwtBearer,
  type SchemeVerifier,
} from "@protoc-gen-a2a/runtime/auth";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A2AServiceV1_0,
  type A2AServiceClient,
  type A2AServiceHandler,
  createA2AServiceHttpHandler,
} from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { dualVersionHttpHandler } from "../../generated-samples/a2a_compat.js";
import { createA2AServiceJsonRpcClient as createV03JsonRpcClient } from "../../generated-samples/v0.3.0/a2a_jsonrpc.js";
import { a2aServiceGrpcRoutes, createA2AServiceGrpcClient } from "../../generated-samples/v1.0.1/a2a_grpc.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { GetTaskRequestSchema, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

const tagKey = createContextKey<string>("none", "test tag");

/** The card: an API key in a header, or Basic, or a bearer JWT with scope a2a:read; "admin" needs more. */
const card = {
  securitySchemes: {
    key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
    qkey: { apiKeySecurityScheme: { location: "query", name: "api_key" } },
    ckey: { apiKeySecurityScheme: { location: "cookie", name: "a2a_key" } },
    basic: { httpAuthSecurityScheme: { scheme: "Basic" } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: "set later" } },
  },
  securityRequirements: [
    { schemes: { key: { list: [] } } },
    { schemes: { qkey: { list: [] } } },
    { schemes: { ckey: { list: [] } } },
    { schemes: { basic: { list: [] } } },
    { schemes: { oidc: { list: ["a2a:read"] } } },
  ],
};

const handler: A2AServiceHandler = {
  getTask: async ({ id }, context) => ({
    id,
    contextId: `${context.principal?.id ?? "anonymous"}/${context.principal?.scheme}/${context.values.get(tagKey)}`,
    status: { state: TaskState.COMPLETED },
  }),
  async *subscribeToTask({ id }, context) {
    yield { payload: { case: "task", value: { id, contextId: context.principal?.id ?? "anonymous" } } };
    yield { payload: { case: "task", value: { id, contextId: "second" } } };
  },
};

let http: Server;
let grpc: Http2Server;
let jwks: Server;
let issuer = "";
let signingKey: SigningKey;
const seen: string[] = [];
const clients: [string, (headers: Record<string, string>) => A2AServiceClient][] = [];

const listen = (server: Server | Http2Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

/** Records what each call looked like, tags it, answers GetTask "stop" itself and uppercases streamed ids. */
const recorder: Interceptor = (next) => async (call) => {
  const { context } = call;
  const id = isMessage(call.request, GetTaskRequestSchema) ? call.request.id : "";
  seen.push(`${call.operation.name} ${context.binding} ${context.protocolVersion} ${id}`);
  context.values.set(tagKey, "tagged");
  if (id === "stop") throw new A2AError("TaskNotFoundError", "stopped by an interceptor");
  const result = await next(call);
  if (result.kind === "stream") {
    const messages = result.messages;
    return {
      kind: "stream",
      messages: (async function* () {
        for await (const m of messages) yield m;
      })(),
    };
  }
  return result;
};

async function token(claims: Record<string, unknown>, options: { key?: SigningKey; exp?: string } = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(issuer)
    .setAudience("https://agent.test")
    .setSubject("carol")
    .setIssuedAt()
    .setExpirationTime(options.exp ?? "5m")
    .sign(options.key ?? signingKey);
}

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  signingKey = pair.privateKey;
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  jwks = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/.well-known/openid-configuration") {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    } else res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  issuer = `http://127.0.0.1:${await listen(jwks)}`;
  const verifiers: Record<string, SchemeVerifier> = {
    key: apiKeyTable({ "alice-key": "alice" }),
    qkey: apiKeyTable({ "bob-key": "bob" }),
    ckey: apiKeyTable({ "dave-key": "dave" }),
    basic: { basic: ({ username, password }) => (password === `${username}-pw` ? { id: username } : undefined) },
    oidc: jwtBearer({ issuer, audience: "https://agent.test" }),
  };
  const interceptors = [authenticate({ card, verifiers }), recorder];
  http = createServer(nodeHttpListener(createA2AServiceHttpHandler({ handler, interceptors })));
  grpc = createHttp2Server(connectNodeAdapter({ routes: a2aServiceGrpcRoutes({ handler, interceptors }), grpc: true }));
  const [port, grpcPort] = [await listen(http), await listen(grpc)];
  clients.push(
    ["JSONRPC", (headers) => createA2AServiceJsonRpcClient({ url: `http://127.0.0.1:${port}/jsonrpc`, headers })],
    ["HTTP+JSON", (headers) => createA2AServiceRestClient({ url: `http://127.0.0.1:${port}/rest`, headers })],
    [
      "GRPC",
      (headers) =>
        createA2AServiceGrpcClient(createGrpcTransport({ baseUrl: `http://127.0.0.1:${grpcPort}` }), { headers }),
    ],
  );
});

afterAll(() => {
  for (const s of [http, jwks]) {
    s.closeAllConnections();
    s.close();
  }
  grpc.close();
});

async function failure(call: () => Promise<unknown>): Promise<A2AError> {
  try {
    await call();
  } catch (e) {
    return e as A2AError;
  }
  throw new Error("the call succeeded");
}

describe.each([["JSONRPC"], ["HTTP+JSON"], ["GRPC"]])("%s", (binding) => {
  const client = (headers: Record<string, string> = {}) => clients.find(([b]) => b === binding)![1](headers);

  it("admits an API key in its header; the principal and the interceptor's values reach the handler", async () => {
    const task = await client({ "x-api-key": "alice-key" }).getTask({ id: "t1" });
    expect(task.contextId).toBe("alice/key/tagged");
    expect(seen).toContain(`GetTask ${binding} 1.0 t1`);
  });

  it("admits Basic and a bearer JWT with the scope, and tells the principal's scheme", async () => {
    const basic = `Basic ${Buffer.from("erin:erin-pw").toString("base64")}`;
    expect((await client({ authorization: basic }).getTask({ id: "t" })).contextId).toBe("erin/basic/tagged");
    const jwt = await token({ scope: "a2a:read a2a:write" });
    expect((await client({ authorization: `Bearer ${jwt}` }).getTask({ id: "t" })).contextId).toBe("carol/oidc/tagged");
  });

  it("refuses a call without credentials, or with wrong ones, as UnauthenticatedError", async () => {
    for (const headers of [{}, { "x-api-key": "wrong" }, { authorization: "Basic !!" }]) {
      const e = await failure(() => client(headers).getTask({ id: "t" }));
      expect(e).toBeInstanceOf(A2AError);
      expect(e.type).toBe("UnauthenticatedError");
      expect(e.message).toContain("the agent card accepts key or qkey or ckey or basic or oidc");
    }
  });

  it("refuses expired, foreign-key, alg none and tampered tokens, and a token without the scope", async () => {
    const other = (await generateKeyPair("ES256")).privateKey;
    const good = await token({ scope: "a2a:read" });
    const [h, p, s] = good.split(".");
    const forged = { sub: "mallory", iss: issuer, aud: "https://agent.test", scope: "a2a:read", exp: 9e9 };
    const tampered = `${h}.${Buffer.from(JSON.stringify(forged)).toString("base64url")}.${s}`;
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${p}.`;
    for (const jwt of [
      await token({ scope: "a2a:read" }, { exp: "-5m" }),
      await token({ scope: "a2a:read" }, { key: other }),
      tampered,
      none,
    ]) {
      const e = await failure(() => client({ authorization: `Bearer ${jwt}` }).getTask({ id: "t" }));
      expect(e.type).toBe("UnauthenticatedError");
    }
    const narrow = await token({ scope: "a2a:write" });
    const e = await failure(() => client({ authorization: `Bearer ${narrow}` }).getTask({ id: "t" }));
    expect(e.type).toBe("PermissionDeniedError");
    expect(e.message).toContain("a2a:read");
  });

  it("lets an interceptor answer for the handler, and passes streams through it", async () => {
    const e = await failure(() => client({ "x-api-key": "alice-key" }).getTask({ id: "stop" }));
    expect(e.type).toBe("TaskNotFoundError");
    expect(e.message).toBe("stopped by an interceptor");
    const ids: string[] = [];
    for await (const ev of client({ "x-api-key": "alice-key" }).subscribeToTask({ id: "s" })) {
      if (ev.payload.case === "task") ids.push(ev.payload.value.contextId);
    }
    expect(ids).toEqual(["alice", "second"]);
    const refused = await failure(async () => {
      for await (const _ of client().subscribeToTask({ id: "s" })) {
        // nothing arrives
      }
    });
    expect(refused.type).toBe("UnauthenticatedError");
  });
});

describe("on the wire", () => {
  it("answers 401 with a challenge per scheme on HTTP+JSON and JSON-RPC, and 403 with insufficient_scope", async () => {
    const url = (http.address() as AddressInfo).port;
    const rest = await fetch(`http://127.0.0.1:${url}/rest/tasks/t`, { headers: { "a2a-version": "1.0" } });
    expect(rest.status).toBe(401);
    const challenge = rest.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('ApiKey realm="a2a", in="header", name="X-API-Key"');
    expect(challenge).toContain('Basic realm="a2a"');
    expect(challenge).toContain('Bearer realm="a2a"');
    expect(((await rest.json()) as { error: { status: string } }).error.status).toBe("UNAUTHENTICATED");
    const rpc = await fetch(`http://127.0.0.1:${url}/jsonrpc`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t" } }),
    });
    expect(rpc.status).toBe(401);
    expect(rpc.headers.get("www-authenticate")).toBe(challenge);
    expect(((await rpc.json()) as { error: { code: number } }).error.code).toBe(-32040);
    const narrow = await token({ scope: "other" });
    const denied = await fetch(`http://127.0.0.1:${url}/rest/tasks/t`, {
      headers: { "a2a-version": "1.0", authorization: `Bearer ${narrow}` },
    });
    expect(denied.status).toBe(403);
    expect(denied.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="a2a:read"');
  });

  it("admits a query API key: in the URL on HTTP, as the metadata entry of its name on gRPC", async () => {
    const port = (http.address() as AddressInfo).port;
    const rest = await fetch(`http://127.0.0.1:${port}/rest/tasks/t?api_key=bob-key`, {
      headers: { "a2a-version": "1.0" },
    });
    expect(((await rest.json()) as { contextId: string }).contextId).toBe("bob/qkey/tagged");
    // gRPC has no query: the clients send the key as metadata under its name, lowercased.
    const grpcClient = clients.find(([b]) => b === "GRPC")![1];
    expect((await grpcClient({ api_key: "bob-key" }).getTask({ id: "t" })).contextId).toBe("bob/qkey/tagged");
    const wrong = await failure(() => grpcClient({ api_key: "alice-key" }).getTask({ id: "t" }));
    expect(wrong.type).toBe("UnauthenticatedError");
  });

  it("gives gRPC UNAUTHENTICATED and PERMISSION_DENIED", async () => {
    const port = (grpc.address() as AddressInfo).port;
    const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` });
    const raw = createClient(A2AServiceV1_0.service, transport);
    const codeOf = async (headers: Record<string, string>) => {
      try {
        await raw.getTask({ id: "t" }, { headers: { "a2a-version": "1.0", ...headers } });
      } catch (e) {
        return (e as ConnectError).code;
      }
      return "ok";
    };
    expect(await codeOf({})).toBe(Code.Unauthenticated);
    const refused = await raw.getTask({ id: "t" }, { headers: { "a2a-version": "1.0" } }).catch((e: ConnectError) => e);
    expect((refused as ConnectError).metadata.get("www-authenticate")).toContain('ApiKey realm="a2a"');
    expect(await codeOf({ authorization: `Bearer ${await token({ scope: "other" })}` })).toBe(Code.PermissionDenied);
    expect(await codeOf({ "x-api-key": "alice-key" })).toBe("ok");
  });

  it("checks v0.3 calls through the version bridge the same way", async () => {
    const verifiers = { key: apiKeyTable({ "alice-key": "alice" }) };
    const v03card = {
      securitySchemes: { key: { type: "apiKey", in: "header", name: "X-API-Key" } },
      security: [{ key: [] }],
    };
    const dual = createServer(
      nodeHttpListener(
        dualVersionHttpHandler(handler, { interceptors: [authenticate({ card: v03card, verifiers }), recorder] }),
      ),
    );
    const port = await listen(dual);
    try {
      const v03 = (headers: Record<string, string>) =>
        createV03JsonRpcClient({ url: `http://127.0.0.1:${port}/jsonrpc`, headers });
      const e = await failure(() => v03({}).getTask({ name: "tasks/t3" }));
      expect(e.type).toBe("UnauthenticatedError");
      expect(e.code).toBe(-32040);
      const task = await v03({ "x-api-key": "alice-key" }).getTask({ name: "tasks/t3" });
      expect(task.contextId).toBe("alice/key/tagged");
      expect(seen).toContain("GetTask JSONRPC 0.3 ");
    } finally {
      dual.closeAllConnections();
      dual.close();
    }
  });

  it("admits API keys in a query parameter and a cookie", async () => {
    const port = (http.address() as AddressInfo).port;
    const q = await fetch(`http://127.0.0.1:${port}/rest/tasks/t?api_key=bob-key`, {
      headers: { "a2a-version": "1.0" },
    });
    expect(((await q.json()) as { contextId: string }).contextId).toBe("bob/qkey/tagged");
    const c = await fetch(`http://127.0.0.1:${port}/rest/tasks/t`, {
      headers: { "a2a-version": "1.0", cookie: "theme=dark; a2a_key=dave-key" },
    });
    expect(((await c.json()) as { contextId: string }).contextId).toBe("dave/ckey/tagged");
  });
});

describe("a card that makes authentication optional (an empty requirement, listed first)", () => {
  const optionalCard = {
    securitySchemes: {
      key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
      // A query key no header can name: gRPC, which reads query keys from metadata, never sees it presented.
      qkey: { apiKeySecurityScheme: { location: "query", name: "key[]" } },
      oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: "set later" } },
    },
    securityRequirements: [
      { schemes: {} },
      { schemes: { key: { list: [] } } },
      { schemes: { qkey: { list: [] } } },
      { schemes: { oidc: { list: ["a2a:admin"] } } },
    ],
  };
  let server: Server;
  let grpcServer: Http2Server;
  let call: (headers: Record<string, string>) => Promise<string>;
  let grpcCall: (headers: Record<string, string>) => Promise<string>;
  beforeAll(async () => {
    const verifiers = {
      key: apiKeyTable({ "alice-key": "alice" }),
      qkey: apiKeyTable({ "bob-key": "bob" }),
      oidc: jwtBearer({ issuer, audience: "https://agent.test" }),
    };
    const interceptors = [authenticate({ card: optionalCard, verifiers }), recorder];
    server = createServer(nodeHttpListener(createA2AServiceHttpHandler({ handler, interceptors })));
    const routes = a2aServiceGrpcRoutes({ handler, interceptors });
    grpcServer = createHttp2Server(connectNodeAdapter({ routes, grpc: true }));
    const url = `http://127.0.0.1:${await listen(server)}/jsonrpc`;
    const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${await listen(grpcServer)}` });
    call = async (headers) => (await createA2AServiceJsonRpcClient({ url, headers }).getTask({ id: "t" })).contextId;
    grpcCall = async (headers) =>
      (await createA2AServiceGrpcClient(transport, { headers }).getTask({ id: "t" })).contextId;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
    grpcServer.close();
  });

  it("admits a valid credential as its caller, not as anonymous", async () => {
    expect(await call({ "x-api-key": "alice-key" })).toBe("alice/key/tagged");
    expect(await grpcCall({ "x-api-key": "alice-key" })).toBe("alice/key/tagged");
  });

  it("admits a call without credentials, without a principal", async () => {
    expect(await call({})).toBe("anonymous/undefined/tagged");
    expect(await grpcCall({})).toBe("anonymous/undefined/tagged");
  });

  it("refuses a credential that fails, or lacks a scope, rather than admitting it anonymous", async () => {
    const wrong = await failure(() => call({ "x-api-key": "wrong" }));
    expect([wrong.type, wrong.message]).toEqual([
      "UnauthenticatedError",
      "Authentication required: invalid credentials for key; the agent card accepts (none) or key or qkey or oidc",
    ]);
    const malformed = await failure(() => call({ authorization: "Bearer" }));
    expect(malformed.type).toBe("UnauthenticatedError");
    const scopeless = await failure(async () =>
      call({ authorization: `Bearer ${await token({ scope: "a2a:read" })}` }),
    );
    expect([scopeless.type, scopeless.message]).toEqual([
      "PermissionDeniedError",
      "Permission denied: missing scope a2a:admin",
    ]);
  });
});

describe("a requirement of two schemes, with authentication optional", () => {
  it("refuses a credential for one of them, naming it, rather than admitting it anonymous", async () => {
    const andCard = {
      securitySchemes: {
        key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
        oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: "set later" } },
      },
      securityRequirements: [{ schemes: {} }, { schemes: { key: { list: [] }, oidc: { list: [] } } }],
    };
    const verifiers = {
      key: apiKeyTable({ "alice-key": "alice" }),
      oidc: jwtBearer({ issuer, audience: "https://agent.test" }),
    };
    const interceptors = [authenticate({ card: andCard, verifiers }), recorder];
    const server = createServer(nodeHttpListener(createA2AServiceHttpHandler({ handler, interceptors })));
    const url = `http://127.0.0.1:${await listen(server)}/jsonrpc`;
    try {
      const bearer = `Bearer ${await token({ scope: "a2a:read" })}`;
      const e = await failure(() =>
        createA2AServiceJsonRpcClient({ url, headers: { authorization: bearer } }).getTask({ id: "t" }),
      );
      expect([e.type, e.message]).toEqual([
        "UnauthenticatedError",
        "Authentication required: credentials for oidc that meet no requirement; " +
          "the agent card accepts (none) or key + oidc",
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe("at start", () => {
  it("refuses a card that declares a scheme no verifier is given for, in one line", () => {
    const start = () => authenticate({ card, verifiers: { key: apiKeyTable({}) } });
    expect(start).toThrow(AuthSetupError);
    expect(start).toThrow(/^authenticate: the agent card declares security scheme "qkey" \(API key in query api_key\)/);
    expect(() =>
      authenticate({ card: { securityRequirements: [{ schemes: { x: { list: [] } } }] }, verifiers: {} }),
    ).toThrow(/names scheme "x", which securitySchemes lacks/);
  });
});
