/**
 * Proves the a2a-js peer harness (test/helpers/a2a-js-peers.ts): a2a-js clients
 * against a2a-js servers, v1.0 (@a2a-js/sdk 1.3.0) and v0.3 (0.3.14), every binding.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentCard } from "@a2a-js/sdk";
import type { AgentCard as V03AgentCard } from "a2a-js-v03";
import {
  ALL_BINDINGS,
  EXTENDED_SKILL_ID,
  EXTENDED_SUFFIX,
  a2aJsV03Client,
  a2aJsV03ClientFor,
  a2aJsV10Client,
  a2aJsV10ClientFor,
  artifactTexts,
  collectEvents,
  describeA2aJsError,
  startA2aJsV03Agent,
  startA2aJsV10Agent,
  stateOf,
  summarizeEvent,
  type A2aBinding,
  type A2aJsAgent,
  type A2aJsClient,
  type EitherResults,
} from "../helpers/a2a-js-peers.js";

type Flavor = {
  label: string;
  start: () => Promise<A2aJsAgent>;
  client: (agent: A2aJsAgent, binding: A2aBinding) => Promise<A2aJsClient>;
  hasListTasks: boolean;
};

const FLAVORS: Flavor[] = [
  { label: "v1.0 (@a2a-js/sdk 1.3.0)", start: startA2aJsV10Agent, client: a2aJsV10Client, hasListTasks: true },
  { label: "v0.3 (@a2a-js/sdk 0.3.14)", start: startA2aJsV03Agent, client: a2aJsV03Client, hasListTasks: false },
];

function taskIdOf(result: unknown): string {
  const s = summarizeEvent(result);
  if (s.kind !== "task" || !s.taskId) throw new Error(`expected a Task, got ${JSON.stringify(result)}`);
  return s.taskId;
}

async function expectReject(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
}

for (const flavor of FLAVORS) {
  describe(`a2a-js harness ${flavor.label}`, () => {
    let agent: A2aJsAgent;

    beforeAll(async () => {
      agent = await flavor.start();
    });
    afterAll(async () => {
      await agent?.close();
    });

    it("serves the agent card at /.well-known/agent-card.json", async () => {
      const res = await fetch(agent.cardUrl);
      expect(res.status).toBe(200);
      const json: unknown = await res.json();
      expect(agent.grpcUrl).toMatch(/^127\.0\.0\.1:\d+$/);
      if (agent.version === "1.0") {
        const card = json as AgentCard;
        expect(card.capabilities?.extendedAgentCard).toBe(true);
        expect(card.supportedInterfaces).toEqual([
          expect.objectContaining({ url: agent.jsonrpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" }),
          expect.objectContaining({ url: agent.restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }),
          expect.objectContaining({ url: agent.grpcUrl, protocolBinding: "GRPC", protocolVersion: "1.0" }),
        ]);
      } else {
        const card = json as V03AgentCard;
        expect(card.protocolVersion).toBe("0.3.0");
        expect(card.url).toBe(agent.jsonrpcUrl);
        expect(card.preferredTransport).toBe("JSONRPC");
        expect(card.supportsAuthenticatedExtendedCard).toBe(true);
        expect(card.additionalInterfaces).toEqual([
          { url: agent.jsonrpcUrl, transport: "JSONRPC" },
          { url: agent.restUrl, transport: "HTTP+JSON" },
          { url: agent.grpcUrl, transport: "GRPC" },
        ]);
      }
    });

    for (const binding of ALL_BINDINGS) {
      describe(binding, () => {
        let client: A2aJsClient;
        beforeAll(async () => {
          client = await flavor.client(agent, binding);
          expect(client.binding).toBe(binding);
        });
        afterAll(() => client?.close());

        it("SendMessage echoes the text in one artifact and completes", async () => {
          const result = await client.sendText(`hello ${binding}`);
          expect(stateOf(result)).toBe("completed");
          expect(artifactTexts(result)).toEqual([`hello ${binding}`]);
        });

        it("SendStreamingMessage yields task → working → artifact → completed", async () => {
          const events = (await client.stream(`stream ${binding}`)).map(summarizeEvent);
          expect(events.map((e) => [e.kind, e.state ?? e.text])).toEqual([
            ["task", "submitted"],
            ["status-update", "working"],
            ["artifact-update", `stream ${binding}`],
            ["status-update", "completed"],
          ]);
        });

        it("GetTask returns the stored task (and ListTasks lists it on v1.0)", async () => {
          const sent = await client.sendText(`get ${binding}`);
          const id = taskIdOf(sent);
          const task = await client.getTask(id, 10);
          expect(summarizeEvent(task)).toMatchObject({ kind: "task", taskId: id, state: "completed" });
          expect(artifactTexts(task)).toEqual([`get ${binding}`]);
          if (flavor.hasListTasks) {
            const list = await client.listTasks({ contextId: task.contextId, includeArtifacts: true });
            expect(list.tasks.map((t) => t.id)).toEqual([id]);
            expect(list.totalSize).toBe(1);
          } else {
            await expect(client.listTasks()).rejects.toThrow(/v0\.3/);
          }
        });

        it("a 'wait' task can be subscribed to and canceled", async () => {
          const started = await client.sendText("wait", { blocking: false });
          const id = taskIdOf(started);
          expect(["submitted", "working"]).toContain(stateOf(started));

          const sub = client.subscribe(id);
          const first = await sub.next(); // the server answers with the current Task first
          expect(summarizeEvent(first.value)).toMatchObject({ kind: "task", taskId: id });
          expect(["submitted", "working"]).toContain(summarizeEvent(first.value).state);

          const canceled = await client.cancelTask(id);
          expect(stateOf(canceled)).toBe("canceled");

          const rest = (await collectEvents({ [Symbol.asyncIterator]: () => sub }, 5000)).map(summarizeEvent);
          expect(rest.at(-1)).toMatchObject({ kind: "status-update", taskId: id, state: "canceled" });
          expect(stateOf(await client.getTask(id))).toBe("canceled");
        });

        it("push notification config create / get / list / delete", async () => {
          const id = taskIdOf(await client.sendText(`push ${binding}`));
          const cfg = { id: "cfg-1", url: "http://127.0.0.1:9/webhook", token: "tok-1" };
          let created: EitherResults["pushConfig"];
          if (agent.version === "0.3" && binding === "HTTP+JSON") {
            // Known 0.3.14 defect: its REST client POSTs the bare TaskPushNotificationConfig
            // (proto `body: "config"`), its REST server wants { config: {...} } (spec §7.5 REST
            // tab) → -32602. Create through JSON-RPC instead (same store), test the rest via REST.
            const err = await expectReject(client.setPushConfig(id, cfg));
            const d = describeA2aJsError(err);
            console.log(`[${flavor.label} ${binding}] set push config →`, JSON.stringify(d));
            expect(d.code).toBe(-32602);
            const viaJsonRpc = await a2aJsV03Client(agent, "JSONRPC");
            created = await viaJsonRpc.setPushConfig(id, cfg);
            viaJsonRpc.close();
          } else {
            created = await client.setPushConfig(id, cfg);
          }
          const got = await client.getPushConfig(id, cfg.id);
          const listed = await client.listPushConfigs(id);
          if (agent.version === "1.0") {
            expect(created).toMatchObject({ taskId: id, ...cfg });
            expect(got).toMatchObject({ taskId: id, ...cfg });
            expect(listed).toHaveProperty("configs", [expect.objectContaining({ taskId: id, ...cfg })]);
          } else {
            expect(created).toMatchObject({ taskId: id, pushNotificationConfig: cfg });
            expect(got).toMatchObject({ taskId: id, pushNotificationConfig: cfg });
            expect(listed).toEqual([
              expect.objectContaining({ taskId: id, pushNotificationConfig: expect.objectContaining(cfg) }),
            ]);
          }
          await client.deletePushConfig(id, cfg.id);
          const after = await client.listPushConfigs(id);
          if (agent.version === "1.0") expect(after).toHaveProperty("configs", []);
          else expect(after).toEqual([]);
        });

        it("extended agent card", async () => {
          const card = await client.getExtendedCard();
          expect(card.name).toMatch(new RegExp(`${EXTENDED_SUFFIX.replace(/[()]/g, "\\$&")}$`));
          expect(card.skills.map((s) => s.id)).toContain(EXTENDED_SKILL_ID);
        });

        it("GetTask of an unknown id fails with the SDK's task-not-found error", async () => {
          const err = await expectReject(client.getTask("no-such-task"));
          const d = describeA2aJsError(err);
          console.log(`[${flavor.label} ${binding}] unknown task →`, JSON.stringify(d));
          expect(d.name).toMatch(/TaskNotFound/);
          expect(d.code).toBe(-32001);
        });
      });
    }

    it("explicit-URL clients (no card fetch) work for every binding", async () => {
      const urls: Record<A2aBinding, string> = {
        JSONRPC: agent.jsonrpcUrl,
        "HTTP+JSON": agent.restUrl,
        GRPC: agent.grpcUrl!,
      };
      for (const binding of ALL_BINDINGS) {
        const c =
          agent.version === "1.0"
            ? await a2aJsV10ClientFor({ url: urls[binding], binding })
            : await a2aJsV03ClientFor({ url: urls[binding], binding });
        try {
          expect(c.binding).toBe(binding);
          expect(artifactTexts(await c.sendText("direct"))).toEqual(["direct"]);
        } finally {
          c.close();
        }
      }
    });
  });
}
