/**
 * The example agent's push options, through the running agent (startEchoAgent) and a webhook receiver on
 * 127.0.0.1: pushToPrivateNetworks false refuses a webhook on 127.0.0.1 when the config is created, true (and
 * the default) accepts it and delivers; pushAllow lets it through by host or by network, and only as listed;
 * pushAllowFromEnv reads A2A_PUSH_ALLOW into those options, or names the entry it cannot use.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushAllowFromEnv } from "../../examples/echo-agent/push-env.js";
import { type AgentOptions, startEchoAgent } from "../../examples/echo-agent/server.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { Role, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";

let webhook: Server;
let hookBase: string;
const hooks: { path: string; body: string }[] = [];

beforeAll(async () => {
  webhook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      hooks.push({ path: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  hookBase = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
});
afterAll(async () => {
  webhook?.closeAllConnections();
  await new Promise<void>((resolve) => webhook?.close(() => resolve()));
});

async function until(what: string, test: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!test()) throw new Error(`not seen: ${what}`);
}

/**
 * Starts the agent with the options, makes a task that waits, registers a webhook on 127.0.0.1 for it and
 * cancels it. Resolves to "delivered" once the webhook got the cancel, or to the refusal's type and message.
 */
async function pushThrough(options: AgentOptions): Promise<string> {
  const agent = await startEchoAgent(options);
  try {
    const client = createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc });
    const message = {
      messageId: crypto.randomUUID(),
      role: Role.USER,
      parts: [{ content: { case: "text" as const, value: "wait" } }],
    };
    const sent = await client.sendMessage({ message, configuration: { returnImmediately: true } });
    const task = sent.payload.value as Task;
    const path = `/hook/${task.id}`;
    try {
      await client.createTaskPushNotificationConfig({ taskId: task.id, url: `${hookBase}${path}` });
    } catch (e) {
      await client.cancelTask({ id: task.id });
      if (e instanceof A2AError) return `${e.type}: ${e.message}`;
      throw e;
    }
    await client.cancelTask({ id: task.id });
    await until(`a push to ${path}`, () =>
      hooks.some((h) => h.path === path && h.body.includes("TASK_STATE_CANCELED")),
    );
    return "delivered";
  } finally {
    await agent.close();
  }
}

describe("startEchoAgent's push options", () => {
  it("pushToPrivateNetworks: false refuses a webhook on 127.0.0.1; true and the default deliver to it", async () => {
    expect(await pushThrough({ pushToPrivateNetworks: false })).toMatch(
      /^InvalidParamsError: push notification URL http:\/\/127\.0\.0\.1:\d+\/hook\/\S+ refused: loopback address$/,
    );
    expect(await pushThrough({ pushToPrivateNetworks: true })).toBe("delivered");
    expect(await pushThrough({})).toBe("delivered");
  });

  it("pushAllow lets 127.0.0.1 through by host or by network, and only as listed", async () => {
    const strict = { pushToPrivateNetworks: false } as const;
    expect(await pushThrough({ ...strict, pushAllow: { hosts: ["127.0.0.1"] } })).toBe("delivered");
    expect(await pushThrough({ ...strict, pushAllow: { networks: ["127.0.0.0/8"] } })).toBe("delivered");
    expect(await pushThrough({ ...strict, pushAllow: { hosts: ["127.0.0.2"], networks: ["10.0.0.0/8"] } })).toMatch(
      /refused: loopback address$/,
    );
  });

  it("A2A_PUSH_ALLOW, read by pushAllowFromEnv, allows what it lists and nothing more", async () => {
    const allow = (value: string) => {
      const options = pushAllowFromEnv(value);
      if ("problem" in options) throw new Error(options.problem);
      return options;
    };
    expect(await pushThrough(allow("hooks.local, 127.0.0.1"))).toBe("delivered");
    expect(await pushThrough(allow("10.0.0.0/8,127.0.0.0/8"))).toBe("delivered");
    expect(await pushThrough(allow("10.0.0.0/8"))).toMatch(/refused: loopback address$/);
    expect(await pushThrough(allow(""))).toMatch(/refused: loopback address$/);
  });

  it("startEchoAgent refuses a bad pushAllow entry, naming it", async () => {
    await expect(startEchoAgent({ pushAllow: { networks: ["10.0.0.0/33"] } })).rejects.toThrow(
      'createPushSender: allowNetworks entry "10.0.0.0/33" has prefix "33", not a number 0-32',
    );
  });
});

describe("pushAllowFromEnv", () => {
  it("leaves the example's defaults when A2A_PUSH_ALLOW is unset", () => {
    expect(pushAllowFromEnv(undefined)).toEqual({});
  });

  it("splits hosts from CIDR networks, trims entries, skips empty ones, and turns private networks off", () => {
    expect(pushAllowFromEnv(" 127.0.0.1, 10.0.0.0/8 ,hooks.local,,fd00::/8, ")).toEqual({
      pushAllow: { hosts: ["127.0.0.1", "hooks.local"], networks: ["10.0.0.0/8", "fd00::/8"] },
      pushToPrivateNetworks: false,
    });
    expect(pushAllowFromEnv("")).toEqual({ pushAllow: { hosts: [], networks: [] }, pushToPrivateNetworks: false });
  });

  it.each([
    ["127.0.0.1,10.0.0.0/33", 'A2A_PUSH_ALLOW: network "10.0.0.0/33" has prefix "33", not a number 0-32'],
    ["10.0.0.1/8", 'A2A_PUSH_ALLOW: network "10.0.0.1/8" has host bits set past /8'],
    ["hooks/x", 'A2A_PUSH_ALLOW: network "hooks/x" is not a CIDR network'],
    ["hooks.local:8080", 'A2A_PUSH_ALLOW: host "hooks.local:8080" is not a host name or IP address'],
    ["hooks local", 'A2A_PUSH_ALLOW: host "hooks local" is not a host name or IP address'],
  ])("names the entry it cannot use: %j", (value, problem) => {
    const result = pushAllowFromEnv(value);
    expect("problem" in result && result.problem).toContain(problem);
  });
});
