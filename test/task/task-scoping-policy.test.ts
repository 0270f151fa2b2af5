/**
 * createTaskHandler's authorize policy and what else knows the caller, in
 * process on the memory store: a policy that refuses a caller (its
 * A2AError is the answer of every operation, before anything is read or
 * made), an async policy, a policy answering nonsense (an Error naming the
 * operation); the executor's RequestContext.principal; GetExtendedAgentCard
 * refused without a principal (UnauthenticatedError, §13.3) and answered per
 * principal; and the memory store's listing across owners kept right while
 * tasks change state and are evicted (the all-owners index is kept up to
 * date after the first query that sees all).
 */
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { A2AError } from "@protoc-gen-a2a/runtime";
import {
  createMemoryTaskStore,
  createTaskHandler,
  ownerOf,
  ownerOnly,
  type TaskAuthorizer,
} from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { GetExtendedAgentCardRequestSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { callerContext, principal } from "../helpers/caller-context.js";
import {
  adminSeesAll,
  askingAgent,
  callers,
  cancelRequest,
  configRequest,
  firstOf,
  getRequest,
  listAll,
  listRequest,
  refusal,
  scopedHandler,
  send,
  subscribeRequest,
  TaskState,
} from "../helpers/scoping-agent.js";
import { freshTenant } from "./store-fixtures.js";

const ALICE = principal("alice");
const MALLORY = principal("mallory");
const denied = { type: "PermissionDeniedError", message: "mallory may not touch tasks" };

const refusingMallory: TaskAuthorizer = (p, context) => {
  if (p?.id === "mallory") throw new A2AError("PermissionDeniedError", "mallory may not touch tasks");
  return ownerOnly(p, context);
};

describe("the authorize policy", () => {
  it("refuses a caller on every operation with its own error, before anything is read or made", async () => {
    const store = createMemoryTaskStore();
    const h = scopedHandler(store, refusingMallory);
    const tenant = freshTenant();
    const [alice, mallory] = [callerContext(ALICE, { tenant }), callerContext(MALLORY, { tenant })];
    const a = await send(h, alice);
    expect(await refusal(send(h, mallory))).toEqual(denied);
    expect(await refusal(send(h, mallory, "answer", { taskId: a.id }))).toEqual(denied);
    expect(await refusal(h.getTask!(getRequest(a.id), mallory))).toEqual(denied);
    expect(await refusal(h.getTask!(getRequest("missing"), mallory))).toEqual(denied);
    expect(await refusal(h.listTasks!(listRequest(), mallory))).toEqual(denied);
    expect(await refusal(h.cancelTask!(cancelRequest(a.id), mallory))).toEqual(denied);
    expect(await refusal(firstOf(h.subscribeToTask!(subscribeRequest(a.id), mallory)))).toEqual(denied);
    const config = configRequest(a.id, "https://hooks.example/m");
    expect(await refusal(h.createTaskPushNotificationConfig!(config, mallory))).toEqual(denied);
    expect(
      (await store.list(tenant, { contextId: "", status: 0, statusAfterMs: undefined, pageSize: 9, pageToken: "" }))
        .totalSize,
    ).toBe(1);
    expect((await h.getTask!(getRequest(a.id), alice)).status?.state).toBe(TaskState.INPUT_REQUIRED);
    await store.close();
  });

  it("may answer asynchronously", async () => {
    const store = createMemoryTaskStore();
    const later: TaskAuthorizer = async (p) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { owner: `team-of-${p?.id ?? "none"}`, seesAll: false };
    };
    const h = scopedHandler(store, later);
    const tenant = freshTenant();
    const a = await send(h, callerContext(ALICE, { tenant }));
    expect((await h.getTask!(getRequest(a.id), callerContext(principal("alice"), { tenant }))).id).toBe(a.id);
    expect(await store.get(tenant, a.id, "team-of-alice")).toBeDefined();
    expect(await store.get(tenant, a.id, "alice")).toBeUndefined();
    await store.close();
  });

  it("by default tells the same id apart by the scheme that verified it", async () => {
    const store = createMemoryTaskStore();
    const h = scopedHandler(store);
    const tenant = freshTenant();
    const byKey = callerContext({ ...ALICE, scheme: "apiKey" }, { tenant });
    const byIssuer = callerContext({ ...ALICE, scheme: "partner-oidc" }, { tenant });
    const a = await send(h, byKey);
    const notFound = { type: "TaskNotFoundError" };
    expect(await refusal(h.getTask!(getRequest(a.id), byIssuer))).toMatchObject(notFound);
    expect(await refusal(h.cancelTask!(cancelRequest(a.id), byIssuer))).toMatchObject(notFound);
    expect((await h.listTasks!(listRequest(), byIssuer)).tasks).toEqual([]);
    expect((await h.getTask!(getRequest(a.id), byKey)).id).toBe(a.id);
    expect(await store.get(tenant, a.id, "apiKey/alice")).toBeDefined();
    await store.close();
  });

  it("answering no TaskAccess is an Error naming the operation", async () => {
    const store = createMemoryTaskStore();
    const wrong = (() => ({ owner: 7 })) as unknown as TaskAuthorizer;
    const h = scopedHandler(store, wrong);
    await expect(h.getTask!(getRequest("x"), callerContext(ALICE))).rejects.toThrow(
      "GetTask: the authorize policy answered no {owner: string, seesAll: boolean}",
    );
    const nul: TaskAuthorizer = () => ({ owner: "a\u0000b", seesAll: false });
    const refused = await refusal(scopedHandler(store, nul).listTasks!(listRequest(), callerContext(ALICE)));
    expect(refused).toEqual({
      type: "InvalidParamsError",
      message: "ListTasks: owner holds a NUL character (U+0000), which no task store key may hold",
    });
    await store.close();
  });
});

describe("the caller reaches the executor", () => {
  it("as RequestContext.principal, undefined without authentication", async () => {
    const store = createMemoryTaskStore();
    const h = scopedHandler(store);
    const a = await send(h, callerContext(ALICE));
    expect(callers.get(a.id)).toEqual(ALICE);
    const n = await send(h, callerContext(undefined));
    expect(callers.has(n.id)).toBe(true);
    expect(callers.get(n.id)).toBeUndefined();
    await store.close();
  });
});

describe("GetExtendedAgentCard", () => {
  const h = createTaskHandler({
    definition: A2AServiceV1_0,
    executor: askingAgent,
    extendedAgentCard: (p, context) => ({ name: `card for ${p.id} over ${context.binding}` }),
  });
  const request = create(GetExtendedAgentCardRequestSchema);

  it("is refused without a principal (UnauthenticatedError)", async () => {
    expect(await refusal(h.getExtendedAgentCard!(request, callerContext(undefined)))).toEqual({
      type: "UnauthenticatedError",
      message: "GetExtendedAgentCard requires authentication",
    });
  });

  it("answers the card the option makes for the principal", async () => {
    expect((await h.getExtendedAgentCard!(request, callerContext(ALICE))).name).toBe("card for alice over JSONRPC");
  });
});

describe("the memory store's listing across owners", () => {
  it("stays right as tasks change state and are evicted, for each owner and for all", async () => {
    // Bounded by count alone: the shares (a quarter of 6 per caller by default) are not what this tests.
    const store = createMemoryTaskStore({ maxTasks: 6, maxTenantShare: 1, maxOwnerShare: 1 });
    const h = scopedHandler(store, adminSeesAll);
    const tenant = freshTenant();
    const [alice, bob, root] = [ALICE, principal("bob"), principal("root", ["admin"])].map((p) =>
      callerContext(p, { tenant }),
    ) as [ReturnType<typeof callerContext>, ReturnType<typeof callerContext>, ReturnType<typeof callerContext>];
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await send(h, i % 2 === 0 ? alice : bob)).id);
    // The first query that sees all builds the all-owners index; from here on every change must reach it.
    expect((await listAll(h, root, {}, 50)).totals).toEqual([3]);
    for (let round = 0; round < 4; round++) {
      for (const id of made.splice(0)) {
        const who = (await store.get(tenant, id, ownerOf(ALICE))) ? alice : bob;
        await send(h, who, "answer", { taskId: id });
      }
      for (let i = 0; i < 3; i++) made.push((await send(h, i % 2 === 0 ? alice : bob)).id);
      const [a, b, all] = await Promise.all([listAll(h, alice, {}, 50), listAll(h, bob, {}, 50), listAll(h, root)]);
      expect(all.ids.sort()).toEqual([...a.ids, ...b.ids].sort());
      expect(all.totals.every((n) => n === a.ids.length + b.ids.length)).toBe(true);
      expect(a.ids.length + b.ids.length).toBe(6);
      const open = await listAll(h, root, { status: TaskState.INPUT_REQUIRED }, 50);
      expect(open.ids.sort()).toEqual([...made].sort());
      const done = await listAll(h, alice, { status: TaskState.COMPLETED }, 50);
      expect(done.ids.every((id) => a.ids.includes(id) && !made.includes(id))).toBe(true);
    }
    await store.close();
  });
});
