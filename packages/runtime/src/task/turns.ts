/**
 * Turns: one executor call working on a task, at most one per task at a time.
 *
 *   start    a turn starts with the commit that creates the task or joins a
 *            message to it (TaskCommit.startTurn): the store writes it only
 *            when no turn is running, in the same step as the task, so two
 *            messages racing for one task never both start one
 *   end      the commit that leaves the task terminal or interrupted
 *            (input-required, auth-required) ends the running turn, in the
 *            same step; else the turn ends when its executor call returns
 *            (TaskStore.endTurn). Ending at the interrupted commit, not only
 *            at the return, lets the caller who answers an input-required
 *            prompt the moment it sees it be served, never refused because
 *            the previous call had not quite returned; what that call still
 *            publishes once another turn runs is dropped (updater.ts)
 *   busy     a message to a task whose turn runs is refused (never queued,
 *            never run beside it) with the error the definition's task-turns
 *            rule names (override target api.taskTurns; the shipped entry
 *            `task-turns` says UnsupportedOperationError, with its source): the
 *            client sends it again once the task is input-required or
 *            auth-required
 *
 * A PostgreSQL turn is also leased by the store instance that runs it, so a
 * dead instance's turn ends (postgres/leases.ts).
 */
import { A2AError } from "../core/a2a-error.js";
import { INTERRUPTED_STATES, TERMINAL_STATES, type TaskState } from "./a2a-types.js";

/** The refusal of a message to a task that is working on an earlier one; `busyError` is the catalog name. */
export function busyTaskError(busyError: string, taskId: string): A2AError {
  return A2AError.named(
    busyError,
    `Task ${taskId} is working on an earlier message; send the next one when it is input-required or auth-required`,
  );
}

/** Whether a commit that leaves the task in this state ends its running turn: a terminal or interrupted state. */
export function endsTurn(state: TaskState | undefined): boolean {
  return state !== undefined && (TERMINAL_STATES.has(state) || INTERRUPTED_STATES.has(state));
}

/** The turn running after a commit leaving the task in `state` that may start `started`, from the one before. */
export function turnAfter(
  before: string | undefined,
  state: TaskState | undefined,
  started: string | undefined,
): string | undefined {
  return endsTurn(state) ? undefined : (started ?? before);
}
