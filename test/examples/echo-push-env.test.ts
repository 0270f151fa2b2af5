/**
 * A2A_PUSH_ALLOW read by the example agent's main.ts, as `npm run example` runs it (a child process from
 * dist-examples/): with 127.0.0.1 listed, a webhook there is taken; with only 10.0.0.0/8 listed, it is refused
 * (the list replaces the example's default of allowing private networks); a bad entry ends the agent at start
 * with one line on stderr naming the variable and the entry, and exit code 1.
 */
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { Role, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { EXAMPLE_MAIN, startExampleProcess, stopAllExampleProcesses } from "../helpers/example-process.js";

afterAll(() => stopAllExampleProcesses());

/** Registers a webhook on 127.0.0.1 for a waiting task of an agent started with A2A_PUSH_ALLOW=`allow`. */
async function registerLoopbackHook(allow: string): Promise<string> {
  const agent = await startExampleProcess({ A2A_PUSH_ALLOW: allow });
  try {
    const client = createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc });
    const parts = [{ content: { case: "text" as const, value: "wait" } }];
    const message = { messageId: crypto.randomUUID(), role: Role.USER, parts };
    const sent = await client.sendMessage({ message, configuration: { returnImmediately: true } });
    const task = sent.payload.value as Task;
    try {
      await client.createTaskPushNotificationConfig({ taskId: task.id, url: "http://127.0.0.1:9/hook" });
      return "taken";
    } catch (e) {
      if (e instanceof A2AError) return `${e.type}: ${e.message}`;
      throw e;
    } finally {
      await client.cancelTask({ id: task.id });
    }
  } finally {
    await agent.stop();
  }
}

describe("the example agent's A2A_PUSH_ALLOW", () => {
  it("takes a webhook on a listed host", async () => {
    expect(await registerLoopbackHook("127.0.0.1")).toBe("taken");
  });

  it("refuses one outside the listed networks, private addresses included", async () => {
    expect(await registerLoopbackHook(" 10.0.0.0/8 , ")).toMatch(/^InvalidParamsError: .*loopback/);
  });

  it("ends the agent at start with one line naming a bad entry", () => {
    const env = { ...process.env, PORT: "0", GRPC_PORT: "0", A2A_PUSH_ALLOW: "127.0.0.1,10.0.0.0/33" };
    const r = spawnSync(process.execPath, [EXAMPLE_MAIN], { env, encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1);
    expect(r.stderr).toMatch(/^echo agent: A2A_PUSH_ALLOW: .*"10\.0\.0\.0\/33"/);
  });
});
