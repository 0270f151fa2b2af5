// Child process of runtime-throughput.js: the echo agent's HTTP side (examples/echo-agent/http-side.ts, built
// into dist-examples) on the runtime running this file: Bun.serve on Bun, Deno.serve on Deno, node:http with
// nodeHttpListener on Node. Tasks in memory, no request log. Listens on 127.0.0.1 on a free port and prints
// one JSON line {"port": n}; exits when its stdin closes.
import { echoFetchHandler, echoHttpCore } from "../dist-examples/examples/echo-agent/http-side.js";

let base = "";
const options = { base: () => base };
const announce = (port) => {
  base = `http://127.0.0.1:${port}`;
  console.log(JSON.stringify({ port }));
};

if (globalThis.Bun) {
  const server = globalThis.Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: echoFetchHandler(options) });
  announce(server.port);
} else if (globalThis.Deno) {
  globalThis.Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: ({ port }) => announce(port) },
    echoFetchHandler(options),
  );
} else {
  const { createServer } = await import("node:http");
  const { nodeHttpListener } = await import("@protoc-gen-a2a/runtime");
  const server = createServer(nodeHttpListener(echoHttpCore(options)));
  server.listen(0, "127.0.0.1", () => announce(server.address().port));
}
// Bun and Deno keep serving after stdin ends unless told; every runtime here exits with it.
if (globalThis.Deno) {
  (async () => {
    for await (const _ of globalThis.Deno.stdin.readable);
    globalThis.Deno.exit(0);
  })();
} else {
  process.stdin.on("data", () => {});
  process.stdin.on("end", () => process.exit(0));
}
