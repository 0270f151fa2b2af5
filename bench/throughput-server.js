// Child process of figure 4 (server-throughput.js): starts ONE HTTP server on
// 127.0.0.1 (ephemeral port), prints `{"port":N}` as one stdout line, and
// serves until SIGTERM/SIGINT or until its stdin closes (so it never outlives
// the parent, even if the parent is killed). Exits with process.exit so that
// `node --cpu-prof` writes its profile. Measures nothing by itself.
//
//   node bench/throughput-server.js ours     generated v1.0.1 handler (createA2AServiceHttpHandler)
//                                            through nodeHttpListener on node:http; JSON-RPC at
//                                            /a2a/jsonrpc, HTTP+JSON under /a2a/rest
//   node bench/throughput-server.js a2a-js   @a2a-js/sdk 1.3.0 DefaultRequestHandler behind its
//                                            express jsonRpcHandler (/a2a/jsonrpc) and restHandler (/a2a/rest)
//   node bench/throughput-server.js bare     node:http answering every request with a fixed JSON body
//   node bench/throughput-server.js typed-floor   node:http doing only the protobuf-es work of a JSON-RPC
//                                            SendMessage (JSON.parse, fromJson, create, toJson, stringify),
//                                            none of the A2A checks: what any server typed by protobuf-es pays
//   node bench/throughput-server.js ours-apikey, ours-jwt   ours behind authenticate(): an API key, or a JWT
//                                            bearer token (printed with the port as `headers`)
//   node bench/throughput-server.js ours-otel-noop, ours-otel-sdk   ours with otelServerInterceptor: on the
//                                            no-op providers (no SDK registered), or on the SDK (a tracer
//                                            provider with a batch span processor and a meter provider with
//                                            a periodic reader, both exporting to exporters that drop what
//                                            they get)
//   node bench/throughput-server.js ours-otel-sampled   ours-otel-sdk sampling one new trace in ten
//                                            (ParentBased(TraceIdRatioBased(0.1))), as a busy deployment does
//   node bench/throughput-server.js ours-otel-floor   ours with the SDK's floor instead: an interceptor that
//                                            only starts and ends one span and records one duration per
//                                            call on the same SDK set-up, with the same attributes as
//                                            otelServerInterceptor; what any tracing on that SDK costs
//
// Both A2A servers run the same trivial agent: SendMessage answers at once with
// one agent Message { messageId "r", role AGENT, parts [text "ok"] }.
// Needs `npm run build` and `npm run build:examples`.
import { createServer } from "node:http";
import { createRequire } from "node:module";

const HOST = "127.0.0.1";

/** What the bare server sends: a JSON-RPC SendMessage reply of the same shape and size as ours. */
const BARE_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  result: { message: { messageId: "r", role: "ROLE_AGENT", parts: [{ text: "ok" }] } },
});

async function oursListener(interceptors = []) {
  const { nodeHttpListener } = await import("@protoc-gen-a2a/runtime");
  const { createA2AServiceHttpHandler } = await import("../dist-examples/generated-samples/v1.0.1/a2a_a2a.js");
  const { Role } = await import("../dist-examples/generated-samples/v1.0.1/a2a_pb.js");
  const handler = {
    async sendMessage() {
      return {
        payload: {
          case: "message",
          value: { messageId: "r", role: Role.AGENT, parts: [{ content: { case: "text", value: "ok" } }] },
        },
      };
    },
  };
  return nodeHttpListener(
    createA2AServiceHttpHandler({ handler, interceptors, jsonrpcPath: "/a2a/jsonrpc", restBasePath: "/a2a/rest" }),
  );
}

/** Ours behind an API key in X-API-Key ("bench-key"). */
async function oursApiKeyListener() {
  const { apiKeyTable, authenticate } = await import("@protoc-gen-a2a/runtime/auth");
  const card = {
    securitySchemes: { key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } } },
    securityRequirements: [{ schemes: { key: { list: [] } } }],
  };
  return oursListener([authenticate({ card, verifiers: { key: apiKeyTable({ "bench-key": "bench" }) } })]);
}

/**
 * Ours behind a JWT bearer check (jwtBearer, ES256): the JWKS is served by this process at /jwks, the token it
 * accepts goes out with the port (`headers`), so the load sends `Authorization: Bearer <token>`.
 */
async function oursJwtListener(setup) {
  const { authenticate, jwtBearer } = await import("@protoc-gen-a2a/runtime/auth");
  const { exportJWK, generateKeyPair, SignJWT } = await import("jose");
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "bench", alg: "ES256" }] });
  const issuer = "https://issuer.bench";
  const audience = "https://agent.bench";
  const card = {
    securitySchemes: {
      oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: `${issuer}/.well-known/openid-configuration` } },
    },
    securityRequirements: [{ schemes: { oidc: { list: ["a2a"] } } }],
  };
  const verifier = jwtBearer({ issuer, audience, jwksUri: `http://${HOST}:${await setup.port}/jwks` });
  const token = await new SignJWT({ scope: "a2a" })
    .setProtectedHeader({ alg: "ES256", kid: "bench" })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject("bench")
    .setExpirationTime("1h")
    .sign(privateKey);
  setup.headers = { authorization: `Bearer ${token}` };
  const listener = await oursListener([authenticate({ card, verifiers: { oidc: verifier } })]);
  return (req, res) => {
    if (req.url !== "/jwks") return listener(req, res);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(jwks);
  };
}

/**
 * The SDK as the traced kinds use it: batch span export and a periodic metric reader, to exporters that drop;
 * every trace sampled, or with `ratio` the share of new traces sampled (parent-based, as deployments sample).
 */
async function sdkProviders(ratio) {
  const { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = await import(
    "@opentelemetry/sdk-trace-base"
  );
  const { MeterProvider, PeriodicExportingMetricReader } = await import("@opentelemetry/sdk-metrics");
  const dropped = { export: (_items, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} };
  const sampler =
    ratio === undefined ? undefined : new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropped)], sampler });
  const reader = new PeriodicExportingMetricReader({ exporter: dropped, exportIntervalMillis: 1000 });
  return { tracerProvider, meterProvider: new MeterProvider({ readers: [reader] }) };
}

/**
 * Ours traced: otelServerInterceptor on the no-op providers ("noop"), or on the SDK with batch export, every
 * call sampled ("sdk") or one trace in ten ("sampled"); see the header.
 */
async function oursOtelListener(providers) {
  const { otelServerInterceptor } = await import("@protoc-gen-a2a/runtime/otel");
  if (providers === "noop") return oursListener([otelServerInterceptor()]);
  return oursListener([otelServerInterceptor(await sdkProviders(providers === "sampled" ? 0.1 : undefined))]);
}

/**
 * The SDK's own floor (see the header): per call one SERVER span started with the attributes our interceptor
 * gives a v1.0 JSON-RPC SendMessage, and one duration record with its metric attributes; no A2A code, no
 * propagation, no context.
 */
async function otelFloorListener() {
  const { SpanKind } = await import("@opentelemetry/api");
  const { tracerProvider, meterProvider } = await sdkProviders();
  const tracer = tracerProvider.getTracer("bench-floor");
  const duration = meterProvider.getMeter("bench-floor").createHistogram("rpc.server.call.duration", { unit: "s" });
  const metric = {
    "rpc.system": "jsonrpc",
    "rpc.service": "lf.a2a.v1.A2AService",
    "rpc.method": "SendMessage",
    "a2a.operation": "SendMessage",
  };
  const attributes = { ...metric, "a2a.protocol.version": "1.0", "rpc.jsonrpc.version": "2.0" };
  const floor = (next) => async (call) => {
    const start = performance.now();
    const span = tracer.startSpan("lf.a2a.v1.A2AService/SendMessage", { kind: SpanKind.SERVER, attributes });
    const result = await next(call);
    span.end();
    duration.record((performance.now() - start) / 1000, metric);
    return result;
  };
  return oursListener([floor]);
}

async function a2aJsListener() {
  const { Role } = await import("@a2a-js/sdk");
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import("@a2a-js/sdk/server");
  const { jsonRpcHandler, restHandler, UserBuilder } = await import("@a2a-js/sdk/server/express");
  const express = createRequire(import.meta.url)("express");

  const executor = {
    async execute(ctx, bus) {
      bus.publish(
        AgentEvent.message({
          messageId: "r",
          contextId: ctx.contextId,
          taskId: "",
          role: Role.ROLE_AGENT,
          parts: [{ content: { $case: "text", value: "ok" }, metadata: undefined, filename: "", mediaType: "" }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        }),
      );
    },
    async cancelTask() {},
  };
  // The SDK checks A2A-Version against the card's interfaces, so declare both at 1.0.
  const card = {
    name: "bench agent",
    description: "trivial agent for the throughput benchmark",
    supportedInterfaces: [
      { url: "http://127.0.0.1/a2a/jsonrpc", protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: "http://127.0.0.1/a2a/rest", protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return app;
}

function bareListener() {
  const body = Buffer.from(BARE_BODY);
  return (req, res) => {
    // Drain the request body like a real server would, then answer.
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      res.end(body);
    });
  };
}

/**
 * The protobuf-es floor (see the header): node:http doing only what any server typed by protobuf-es does for
 * a JSON-RPC SendMessage, with none of the A2A checks: read the body, JSON.parse, fromJson of the params,
 * create the answer from the same init as ours, toJson, JSON.stringify.
 */
async function typedFloorListener() {
  const { create, fromJson, toJson } = await import("@bufbuild/protobuf");
  const { Role, SendMessageRequestSchema, SendMessageResponseSchema } = await import(
    "../dist-examples/generated-samples/v1.0.1/a2a_pb.js"
  );
  return (req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const envelope = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const request = fromJson(SendMessageRequestSchema, envelope.params);
      const answer = create(SendMessageResponseSchema, {
        payload: {
          case: "message",
          value: { messageId: "r", role: Role.AGENT, parts: [{ content: { case: "text", value: "ok" } }] },
        },
      });
      const result = request.message ? toJson(SendMessageResponseSchema, answer) : null;
      const body = JSON.stringify({ jsonrpc: "2.0", id: envelope.id, result });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  };
}

const kinds = {
  ours: () => oursListener(),
  "ours-apikey": oursApiKeyListener,
  "ours-jwt": oursJwtListener,
  "ours-otel-noop": () => oursOtelListener("noop"),
  "ours-otel-sdk": () => oursOtelListener("sdk"),
  "ours-otel-sampled": () => oursOtelListener("sampled"),
  "ours-otel-floor": otelFloorListener,
  "a2a-js": a2aJsListener,
  bare: bareListener,
  "typed-floor": typedFloorListener,
};

async function main() {
  const kind = process.argv[2];
  const make = kinds[kind];
  if (!make) throw new Error(`usage: throughput-server.js ${Object.keys(kinds).join("|")}`);
  // The listener is set once made; a kind may need the port first (ours-jwt serves its JWKS here).
  let listener = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => listener(req, res));
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, resolve);
  });
  const setup = { port: Promise.resolve(server.address().port), headers: undefined };
  listener = await make(setup);
  const stop = () => {
    server.closeAllConnections();
    server.close();
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  process.stdin.on("end", stop);
  process.stdin.on("error", stop);
  process.stdin.resume();
  process.stdout.write(JSON.stringify({ port: server.address().port, headers: setup.headers }) + "\n");
}

main().catch((e) => {
  process.stderr.write(`throughput-server: ${e?.stack ?? e}\n`);
  process.exit(1);
});
