/**
 * The push notification config operations, through the store, scoped to
 * the task, the call's tenant and the owner the authorize policy lets it see
 * (access.ts): a config belongs to its task's owner. Left out of the handler
 * when createTaskHandler has no `push` option: the servers then answer
 * PushNotificationNotSupportedError (the capability rule of the definition).
 *
 *   every call  TaskNotFoundError when the tenant has no such task, or it is
 *               another owner's (the same message; the owner is in every
 *               store read, of the task and of its configs)
 *   Create      the config is checked first (push-config-check.ts: header
 *               fields a delivery can send, then the sender screens the URL;
 *               InvalidParamsError naming the field or the reason); no id: a
 *               new one; kept with the call's protocol version, so delivery
 *               speaks it
 *   Get         TaskNotFoundError when the config does not exist (S1 §3.1.8);
 *               without an id (v0.3 may leave it out: its get names only the
 *               task), the task's first config
 *   List        pageSize 0: all; negative: InvalidParamsError
 *   Delete      idempotent: deleting a config that is gone succeeds (S1 §3.1.10);
 *               the sender drops what waits for it and retries it no more
 *               (PushSender.cancel; on this instance: another one's deliveries
 *               for it end as they would)
 */
import type { HandlerContext } from "../core/definition.js";
import { A2AError } from "../core/a2a-error.js";
import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from "./a2a-types.js";
import { scopeOf, tenantOf, type HandlerDeps, type PushOptions } from "./handler-deps.js";
import { checkPushConfig } from "./push-config-check.js";

/** google.protobuf.Empty, what Delete answers. */
export interface Empty {
  readonly $typeName: "google.protobuf.Empty";
}

/** The call's tenant and the owner it sees, once the task is there for it. */
async function taskScope(
  deps: HandlerDeps,
  req: { readonly tenant: string; readonly taskId: string },
  context: HandlerContext,
  operation: string,
): Promise<{ tenant: string; owner: string | undefined }> {
  const tenant = tenantOf(context, req);
  if (!req.taskId) throw new A2AError("InvalidParamsError", "taskId is required");
  const { visible } = await scopeOf(deps, context, operation);
  if (!(await deps.store.get(tenant, req.taskId, visible))) {
    throw new A2AError("TaskNotFoundError", `Task ${req.taskId} not found`);
  }
  return { tenant, owner: visible };
}

export function pushConfigOperations(deps: HandlerDeps, push: PushOptions) {
  return {
    async createTaskPushNotificationConfig(
      req: TaskPushNotificationConfig,
      context: HandlerContext,
    ): Promise<TaskPushNotificationConfig> {
      const { tenant, owner } = await taskScope(deps, req, context, "CreateTaskPushNotificationConfig");
      await checkPushConfig(push.sender, req, { operation: "CreateTaskPushNotificationConfig", path: "" });
      const config: TaskPushNotificationConfig = { ...req, tenant, id: req.id || deps.newId() };
      await deps.store.putPushConfig(tenant, { config, protocolVersion: context.protocolVersion }, owner);
      return config;
    },
    async getTaskPushNotificationConfig(
      req: GetTaskPushNotificationConfigRequest,
      context: HandlerContext,
    ): Promise<TaskPushNotificationConfig> {
      const { tenant, owner } = await taskScope(deps, req, context, "GetTaskPushNotificationConfig");
      const stored = req.id
        ? await deps.store.getPushConfig(tenant, req.taskId, req.id, owner)
        : (await deps.store.listPushConfigs(tenant, req.taskId, 1, "", owner)).configs[0];
      if (!stored) throw new A2AError("TaskNotFoundError", `push config ${req.id} of task ${req.taskId} not found`);
      return stored.config;
    },
    async listTaskPushNotificationConfigs(
      req: ListTaskPushNotificationConfigsRequest,
      context: HandlerContext,
    ): Promise<ListTaskPushNotificationConfigsResponse> {
      if (req.pageSize < 0) {
        throw new A2AError("InvalidParamsError", `ListTaskPushNotificationConfigs: pageSize ${req.pageSize} < 0`);
      }
      const { tenant, owner } = await taskScope(deps, req, context, "ListTaskPushNotificationConfigs");
      const page = await deps.store.listPushConfigs(tenant, req.taskId, req.pageSize, req.pageToken, owner);
      return {
        $typeName: "lf.a2a.v1.ListTaskPushNotificationConfigsResponse",
        configs: page.configs.map((s) => s.config),
        nextPageToken: page.nextPageToken,
      };
    },
    async deleteTaskPushNotificationConfig(
      req: DeleteTaskPushNotificationConfigRequest,
      context: HandlerContext,
    ): Promise<Empty> {
      const { tenant, owner } = await taskScope(deps, req, context, "DeleteTaskPushNotificationConfig");
      if (await deps.store.deletePushConfig(tenant, req.taskId, req.id, owner)) {
        push.sender.cancel?.(tenant, req.taskId, req.id);
      }
      return { $typeName: "google.protobuf.Empty" };
    },
  };
}
