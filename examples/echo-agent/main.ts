/**
 * `npm run example`: the echo agent on 127.0.0.1. HTTP on PORT (default
 * 9999), gRPC on GRPC_PORT (default PORT+1). Stops on SIGTERM or SIGINT.
 */
import { startEchoAgent } from "./server.js";

const port = Number(process.env["PORT"] ?? 9999);
const grpcPort = Number(process.env["GRPC_PORT"] ?? port + 1);
const agent = await startEchoAgent({ port, grpcPort });
process.stdout.write(
  `echo agent (A2A 1.0 and 0.3: A2A-Version picks)\n  agent card  ${agent.urls.card}\n  JSON-RPC    ${agent.urls.jsonrpc}\n  HTTP+JSON   ${agent.urls.rest}\n  gRPC        ${agent.urls.grpc}\n`,
);
const stop = (signal: string) => {
  process.stdout.write(`${signal}: stopping\n`);
  agent.close().then(() => process.exit(0), () => process.exit(1));
};
process.once("SIGTERM", () => stop("SIGTERM"));
process.once("SIGINT", () => stop("SIGINT"));
