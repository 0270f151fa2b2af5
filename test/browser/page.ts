/**
 * The page test/browser.test.ts opens in Chromium (bundled by esbuild for the browser): from its own origin it
 * resolves the agent's card, makes a client for each HTTP binding from it (createA2AServiceClientForCard), and
 * sends, streams, gets and cancels; window.a2aRun resolves to what each step gave, or the error it threw.
 */
import { A2AError, resolveAgentCard } from "@protoc-gen-a2a/runtime";
import { createA2AServiceClientForCard } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";

const message = (text: string) => ({
  messageId: crypto.randomUUID(),
  role: 1,
  parts: [{ content: { case: "text" as const, value: text } }],
});

async function steps(client: A2AServiceClient): Promise<Record<string, unknown>> {
  const sent = await client.sendMessage({ message: message("from the browser") });
  const task = sent.payload.case === "task" ? sent.payload.value : undefined;
  const events: string[] = [];
  for await (const e of client.sendStreamingMessage({ message: message("streamed") }))
    events.push(e.payload.case ?? "");
  const got = await client.getTask({ id: task?.id ?? "" });
  const waiting = await client.sendMessage({ message: message("wait"), configuration: { returnImmediately: true } });
  const waitingId = waiting.payload.case === "task" ? waiting.payload.value.id : "";
  const canceled = await client.cancelTask({ id: waitingId });
  const missing = await client.getTask({ id: "no-such-task" }).catch((e: unknown) => e);
  return {
    echoed: task?.artifacts[0]?.parts[0]?.content.value,
    events,
    got: got.id === task?.id,
    canceled: canceled.status?.state,
    missing: missing instanceof A2AError ? missing.type : String(missing),
  };
}

async function run(cardUrl: string): Promise<Record<string, unknown>> {
  const { card } = await resolveAgentCard(cardUrl);
  const out: Record<string, unknown> = {};
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    const { client, selected } = createA2AServiceClientForCard(card, { bindings: [binding] });
    out[binding] = { url: selected.url, ...(await steps(client)) };
  }
  return out;
}

(globalThis as { a2aRun?: (cardUrl: string) => Promise<unknown> }).a2aRun = (cardUrl) =>
  run(cardUrl).catch((e: unknown) => ({ error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }));
