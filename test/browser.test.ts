/**
 * The generated clients in a browser: esbuild bundles test/browser/page.ts for the browser; a server on one
 * origin serves the page, the echo agent (startEchoAgent, with the cors option naming that origin) listens on
 * another; headless Chromium opens the page, which resolves the agent's card and, over JSON-RPC and HTTP+JSON,
 * sends, streams, gets and cancels, and reads a TaskNotFoundError. An agent that does not list the page's
 * origin is refused by the browser. Without Chromium the file is skipped with one line, but under CI=true,
 * where .ci/run installs Debian's package, it fails instead.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../scripts/docs/chromium.js";
import { missingChromium } from "./helpers/chromium-available.js";
import { startEchoAgent, type RunningAgent } from "../examples/echo-agent/server.js";
import { TaskState } from "../generated-samples/v1.0.1/a2a_pb.js";
import { repoRoot } from "./helpers/run.js";
import { join } from "node:path";

const skipReason = missingChromium("test/browser.test.ts");

let browser: Browser;
let pageServer: Server;
let pageOrigin: string;
const agents: RunningAgent[] = [];

/** The page and its bundle, served from their own origin. */
async function servePage(): Promise<void> {
  const bundle = await build({
    entryPoints: [join(repoRoot, "test/browser/page.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    logLevel: "error",
  });
  const script = bundle.outputFiles[0]!.text;
  pageServer = createServer((req, res) => {
    if (req.url === "/page.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    else
      res
        .writeHead(200, { "content-type": "text/html" })
        .end('<!doctype html><script type="module" src="/page.js"></script>');
  });
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
}

/** Opens the page and runs its calls against the card at `cardUrl`. */
async function runInPage(cardUrl: string): Promise<Record<string, unknown>> {
  const page = await browser.newPage();
  try {
    await page.goto(`${pageOrigin}/`);
    await page.waitForFunction(() => "a2aRun" in globalThis);
    return (await page.evaluate(
      (url) => (globalThis as unknown as { a2aRun: (u: string) => Promise<unknown> }).a2aRun(url),
      cardUrl,
    )) as Record<string, unknown>;
  } finally {
    await page.close();
  }
}

beforeAll(async () => {
  if (skipReason !== undefined) return;
  await servePage();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(agents.map((a) => a.close()));
  await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
});

describe.skipIf(skipReason !== undefined)("the generated clients in Chromium", () => {
  it("resolve the card, then send, stream, get and cancel over both HTTP bindings from another origin", async () => {
    const agent = await startEchoAgent({ corsOrigins: [pageOrigin] });
    agents.push(agent);
    const result = await runInPage(agent.urls.card);
    for (const binding of ["JSONRPC", "HTTP+JSON"]) {
      expect(result[binding]).toEqual({
        url: binding === "JSONRPC" ? agent.urls.jsonrpc : agent.urls.rest,
        echoed: "from the browser",
        events: expect.arrayContaining(["task", "artifactUpdate", "statusUpdate"]),
        got: true,
        canceled: TaskState.CANCELED,
        missing: "TaskNotFoundError",
      });
    }
  });

  it("are refused by the browser when the agent does not list the page's origin", async () => {
    const agent = await startEchoAgent({ corsOrigins: ["https://elsewhere.example"] });
    agents.push(agent);
    const result = await runInPage(agent.urls.card);
    expect(String(result["error"])).toMatch(/fetch/i);
  });
});
