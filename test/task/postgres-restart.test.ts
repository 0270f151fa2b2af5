/**
 * The example agent rides out PostgreSQL restarts: a private cluster of its
 * own (test/helpers/postgres-cluster.js; the run's shared cluster is never
 * touched), two example processes A and B on it (each with a pg.Pool of its
 * own, given to the store, as an application does), and a bounded load of
 * blocking sends to both. CYCLES times: the load succeeds; the server stops
 * at once (down: every connection drops) and the load keeps sending: each
 * call fails cleanly with InternalError naming the store (503), none hangs
 * or meets a dead agent (a send whose turn the outage caught between two of
 * its commits may answer its task FAILED instead, which is as clean: the task
 * is not lost and says it failed; that answer is taken only for a send an
 * outage caught, made during one or before one began: the run writes FAILED
 * once the database is back, store-retry.ts); the server starts again on the same port and data
 * (up) and the load succeeds again, with no agent restarted; both agents'
 * LISTEN connections come back. After the last cycle, a subscription made
 * through B gets the events of a turn run in A. Every wait is bounded; no
 * assertion is on timing.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import { INPUT_TEXT } from "../../examples/echo-agent/echo-handler.js";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role, type StreamResponse, TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { type ExampleProcess, startExampleProcess, stopAllExampleProcesses } from "../helpers/example-process.js";
import { findPostgresBin, INSTALL_HINT, startPostgresCluster } from "../helpers/postgres-cluster.js";
import type { PostgresCluster } from "../helpers/postgres-cluster.js";

const CYCLES = 3;
const LOOPS = 4;
const WAIT = { timeout: 60_000, interval: 50 };

const text = (t: string, taskId = "") => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  taskId,
  parts: [{ content: { case: "text" as const, value: t } }],
});

interface Outcomes {
  ok: number;
  /** Set from just before the server stops until the load succeeds again after it starts. */
  outage: boolean;
  /** How many outages began so far. */
  outages: number;
  /** Sends answered with a FAILED task during an outage (their turn was caught between commits). */
  readonly failedInOutage: string[];
  /** Each refusal as "type: message". */
  readonly refused: string[];
  /** Anything that is no A2A error: a timeout, a dropped connection, a dead agent. */
  readonly other: string[];
}

/** LOOPS loops of blocking sends over `clients`, one send at a time each, until stopped. */
function startLoad(clients: readonly A2AServiceClient[]) {
  const outcomes: Outcomes = { ok: 0, outage: false, outages: 0, failedInOutage: [], refused: [], other: [] };
  let stopped = false;
  const loop = async (client: A2AServiceClient, n: number) => {
    for (let i = 0; !stopped; i++) {
      // A send that an outage caught: started during one, or before one began.
      const { outage, outages } = outcomes;
      const caught = () => outage || outcomes.outage || outcomes.outages > outages;
      try {
        const answer = await client.sendMessage({ message: text(`load ${n}.${i}`) });
        const state = answer.payload.case === "task" ? answer.payload.value.status?.state : undefined;
        const failed = `send answered ${answer.payload.case} in state ${state}`;
        if (state === TaskState.COMPLETED) outcomes.ok++;
        else if (state === TaskState.FAILED && caught()) outcomes.failedInOutage.push(failed);
        else outcomes.other.push(failed);
      } catch (error) {
        if (error instanceof A2AError) outcomes.refused.push(`${error.type}: ${error.message}`);
        else outcomes.other.push(String(error));
        // A refused call returns at once: pause a little, so the outage is not a busy loop.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const loops = Array.from({ length: LOOPS }, (_, n) => loop(clients[n % clients.length]!, n));
  const stop = async () => {
    stopped = true;
    await Promise.all(loops);
  };
  return { outcomes, stop };
}

/** The number of backends whose last statement was the store's LISTEN. */
async function listeners(url: string): Promise<number> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const result = await client.query<{ n: number }>(
      "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()",
    );
    return result.rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

let cluster: PostgresCluster | undefined;
const agents: ExampleProcess[] = [];

/** The agents' stderr when something went wrong, so that a failure shows what the agents said. */
const logsIf = (outcomes: Outcomes) => (outcomes.other.length === 0 ? undefined : agents.map((x) => x.err()));

beforeAll(async () => {
  const bin = findPostgresBin();
  if (bin === undefined) throw new Error(INSTALL_HINT);
  cluster = await startPostgresCluster(bin, "restarts");
  agents.push(
    ...(await Promise.all([
      startExampleProcess({ DATABASE_URL: cluster.url }),
      startExampleProcess({ DATABASE_URL: cluster.url }),
    ])),
  );
});

afterAll(async () => {
  await stopAllExampleProcesses();
  cluster?.stop();
});

describe("PostgreSQL restarts under load", () => {
  it(`the agents stay up, refuse cleanly during ${CYCLES} outages, and work again after each`, async () => {
    const [a, b] = agents as [ExampleProcess, ExampleProcess];
    // Far above any answer's time: a call that runs into it hangs, which is a defect.
    const options = { timeoutMs: 90_000 };
    const clients = [
      createA2AServiceJsonRpcClient({ url: a.urls.jsonrpc, ...options }),
      createA2AServiceRestClient({ url: b.urls.rest, ...options }),
    ];
    const load = startLoad(clients);
    const { outcomes } = load;
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const okBefore = outcomes.ok;
        await vi.waitFor(() => expect(outcomes.ok).toBeGreaterThanOrEqual(okBefore + 10), WAIT);
        await vi.waitFor(async () => expect(await listeners(cluster!.url)).toBe(2), WAIT);

        outcomes.outage = true;
        outcomes.outages++;
        cluster!.down();
        const refusedBefore = outcomes.refused.length;
        await vi.waitFor(() => expect(outcomes.refused.length).toBeGreaterThanOrEqual(refusedBefore + 8), WAIT);
        cluster!.up();

        const okAfter = outcomes.ok;
        await vi.waitFor(() => expect(outcomes.ok).toBeGreaterThanOrEqual(okAfter + 10), WAIT);
        outcomes.outage = false;
        expect({ cycle, alive: agents.map((x) => x.alive()), other: outcomes.other, logs: logsIf(outcomes) }).toEqual({
          cycle,
          alive: [true, true],
          other: [],
          logs: undefined,
        });
      }
    } finally {
      await load.stop();
    }
    expect({ other: outcomes.other, logs: logsIf(outcomes) }).toEqual({ other: [], logs: undefined });
    const wrong = outcomes.refused.filter((r) => !/^InternalError: PostgreSQL task store unavailable: /.test(r));
    expect(wrong).toEqual([]);
    await vi.waitFor(async () => expect(await listeners(cluster!.url)).toBe(2), WAIT);
  });

  it("after the restarts, a subscription through one agent gets the events of a turn in the other", async () => {
    const [a, b] = agents as [ExampleProcess, ExampleProcess];
    const clientA = createA2AServiceJsonRpcClient({ url: a.urls.jsonrpc });
    const clientB = createA2AServiceRestClient({ url: b.urls.rest });
    const asked = await clientA.sendMessage({ message: text(INPUT_TEXT) });
    if (asked.payload.case !== "task") throw new Error("expected a task");
    const id = asked.payload.value.id;
    const stream = clientB.subscribeToTask({ id })[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value?.payload.case).toBe("task");
    const rest = (async () => {
      const out: StreamResponse[] = [];
      for (let r = await stream.next(); !r.done; r = await stream.next()) out.push(r.value);
      return out;
    })();
    const done = await clientA.sendMessage({ message: text("after the restarts", id) });
    expect(done.payload.case === "task" && done.payload.value.status?.state).toBe(TaskState.COMPLETED);
    const events = await Promise.race([
      rest,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no end of stream")), WAIT.timeout)),
    ]);
    // The message's own WORKING (the commit that joined it), then the executor's WORKING, artifact, COMPLETED.
    expect(events.map((e) => e.payload.case)).toEqual([
      "statusUpdate",
      "statusUpdate",
      "artifactUpdate",
      "statusUpdate",
    ]);
    const last = events.at(-1);
    expect(last?.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
    expect(agents.map((x) => x.alive())).toEqual([true, true]);
    for (const agent of agents) expect(agent.err()).not.toMatch(/Unhandled|uncaught/i);
  });
});
