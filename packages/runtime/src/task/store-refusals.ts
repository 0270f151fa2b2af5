/**
 * The refusals both TaskStores give a push config put, worded once so that
 * the memory and PostgreSQL stores answer a client alike:
 *
 *   missing task  TaskNotFoundError: configs belong to a task the store holds
 *   too many      InvalidParamsError past maxPushConfigsPerTask configs per
 *                 task (default DEFAULT_MAX_PUSH_CONFIGS_PER_TASK): each
 *                 config costs one POST per task event, so an unbounded list
 *                 would let one client multiply the agent's outbound calls;
 *                 replacing an existing config (same id) is always allowed
 */
import { A2AError } from "../core/a2a-error.js";

export const DEFAULT_MAX_PUSH_CONFIGS_PER_TASK = 100;

export function pushConfigTaskMissing(configId: string, taskId: string): A2AError {
  return new A2AError("TaskNotFoundError", `push config ${configId}: task ${taskId} not found`);
}

export function tooManyPushConfigs(configId: string, taskId: string, count: number, max: number): A2AError {
  return new A2AError(
    "InvalidParamsError",
    `push config ${configId}: task ${taskId} already has ${count} push configs ` +
      `(maxPushConfigsPerTask ${max}); delete one first`,
  );
}
