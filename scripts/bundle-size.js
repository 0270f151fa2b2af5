// `npm run size`: how much a browser downloads for an A2A client, bundled by esbuild for the browser,
// minified, and gzipped (level 9): the generated JSON-RPC client (v1.0) with card resolution, beside
// @a2a-js/sdk 1.3.0's client made from a card URL, each doing one send. README "Browsers" quotes it.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

const entries = {
  "protoc-gen-a2a, JSON-RPC client (v1.0)": `
    import { resolveAgentCard } from "@protoc-gen-a2a/runtime";
    import { createA2AServiceJsonRpcClient } from "./generated-samples/v1.0.1/a2a_jsonrpc.js";
    export async function send(cardUrl, message) {
      const { card } = await resolveAgentCard(cardUrl);
      const url = card.supportedInterfaces.find((i) => i.protocolBinding === "JSONRPC").url;
      return createA2AServiceJsonRpcClient({ url }).sendMessage({ message });
    }`,
  "@a2a-js/sdk 1.3.0, client from the card": `
    import { ClientFactory } from "@a2a-js/sdk/client";
    export async function send(cardUrl, message) {
      const client = await new ClientFactory().createFromUrl(cardUrl);
      return client.sendMessage({ message });
    }`,
};

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
for (const [name, contents] of Object.entries(entries)) {
  const out = await build({
    stdin: { contents, resolveDir: root, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "error",
  });
  const code = out.outputFiles[0].contents;
  // The minified bytes each package brings, the largest three.
  const bytes = {};
  for (const [path, input] of Object.entries(Object.values(out.metafile.outputs)[0].inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split("/").slice(0, 2).join("/");
    bytes[pkg] = (bytes[pkg] ?? 0) + input.bytesInOutput;
  }
  const largest = Object.entries(bytes)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([pkg, n]) => `${pkg} ${kib(n)}`);
  console.log(`${name}: ${kib(code.length)} minified, ${kib(gzipSync(code, { level: 9 }).length)} gzipped`);
  console.log(`  largest parts (minified): ${largest.join(", ")}`);
}
