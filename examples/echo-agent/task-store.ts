/**
 * In-memory tasks, their event streams and their push configs, for the
 * example agent. Every change to a task is published to its subscribers as a
 * StreamResponse; a subscription ends when the task reaches a terminal or
 * interrupted state.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import {
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../../generated-samples/v1.0.1/a2a_pb.js";

const FINAL_STATES = new Set([
  TaskState.COMPLETED,
  TaskState.CANCELED,
  TaskState.FAILED,
  TaskState.REJECTED,
  TaskState.INPUT_REQUIRED,
  TaskState.AUTH_REQUIRED,
]);

export const isFinal = (state: TaskState) => FINAL_STATES.has(state);

interface Entry {
  task: Task;
  listeners: Set<(event: StreamResponse) => void>;
  pushConfigs: Map<string, TaskPushNotificationConfig>;
  /** Insertion order, for stable listing. */
  seq: number;
}

export class TaskStore {
  private readonly tasks = new Map<string, Entry>();
  private seq = 0;

  create(init: MessageInitShape<typeof TaskSchema>): Task {
    const task = create(TaskSchema, init);
    this.tasks.set(task.id, { task, listeners: new Set(), pushConfigs: new Map(), seq: this.seq++ });
    return task;
  }

  get(id: string): Task | undefined {
    return this.tasks.get(id)?.task;
  }

  /** All tasks, oldest first. */
  all(): Task[] {
    return [...this.tasks.values()].sort((a, b) => a.seq - b.seq).map((e) => e.task);
  }

  setState(id: string, state: TaskState): void {
    const e = this.tasks.get(id);
    if (!e) return;
    e.task.status = { $typeName: "lf.a2a.v1.TaskStatus", state, timestamp: timestampNow() };
    this.publish(id, {
      payload: { case: "statusUpdate", value: { taskId: id, contextId: e.task.contextId, status: e.task.status } },
    });
  }

  addArtifact(id: string, artifact: Task["artifacts"][number]): void {
    const e = this.tasks.get(id);
    if (!e) return;
    e.task.artifacts.push(artifact);
    this.publish(id, {
      payload: {
        case: "artifactUpdate",
        value: { taskId: id, contextId: e.task.contextId, artifact, lastChunk: true },
      },
    });
  }

  publish(id: string, init: MessageInitShape<typeof StreamResponseSchema>): void {
    const event = create(StreamResponseSchema, init);
    for (const l of this.tasks.get(id)?.listeners ?? []) l(event);
  }

  /**
   * Events of a task from this call on (the listener is registered now, not
   * when iteration starts), ending after a terminal or interrupted state, or
   * when the signal aborts.
   */
  events(id: string, signal: AbortSignal): AsyncIterable<StreamResponse> {
    const e = this.tasks.get(id);
    const queue: StreamResponse[] = [];
    let wake: (() => void) | undefined;
    const listener = (ev: StreamResponse) => {
      queue.push(ev);
      wake?.();
    };
    const onAbort = () => wake?.();
    e?.listeners.add(listener);
    signal.addEventListener("abort", onAbort);
    return (async function* () {
      try {
        if (!e) return;
        for (;;) {
          while (queue.length > 0) {
            const ev = queue.shift()!;
            yield ev;
            if (ev.payload.case === "statusUpdate" && isFinal(ev.payload.value.status?.state ?? TaskState.UNSPECIFIED))
              return;
          }
          if (signal.aborted) return;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        e?.listeners.delete(listener);
        signal.removeEventListener("abort", onAbort);
      }
    })();
  }

  pushConfigs(taskId: string): Map<string, TaskPushNotificationConfig> | undefined {
    return this.tasks.get(taskId)?.pushConfigs;
  }
}
