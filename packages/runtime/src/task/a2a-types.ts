/**
 * The lf.a2a.v1 (A2A v1.0) messages the task runtime reads and writes, as
 * protobuf-es shapes: plain objects with `$typeName`, field for field what
 * protoc-gen-es writes for v1.0.1/a2a.proto. The runtime ships no generated
 * code, so it names these shapes itself; enums are plain numbers, so a
 * user's generated message (whose enums are TypeScript enums) is assignable
 * to them and they to the generated init shapes. createTaskHandler checks once
 * that the definition it is given has these messages (schemas.ts).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Timestamp, Value } from "@bufbuild/protobuf/wkt";

/** lf.a2a.v1.TaskState numbers. */
export const TaskState = {
  UNSPECIFIED: 0,
  SUBMITTED: 1,
  WORKING: 2,
  COMPLETED: 3,
  FAILED: 4,
  CANCELED: 5,
  INPUT_REQUIRED: 6,
  REJECTED: 7,
  AUTH_REQUIRED: 8,
} as const;
export type TaskState = number;

/** lf.a2a.v1.Role numbers. */
export const Role = { UNSPECIFIED: 0, USER: 1, AGENT: 2 } as const;
export type Role = number;

export interface Part {
  readonly $typeName: "lf.a2a.v1.Part";
  content:
    | { case: "text"; value: string }
    | { case: "raw"; value: Uint8Array }
    | { case: "url"; value: string }
    | { case: "data"; value: Value }
    | { case: undefined; value?: undefined };
  metadata?: JsonObject | undefined;
  filename: string;
  mediaType: string;
}

export interface Message {
  readonly $typeName: "lf.a2a.v1.Message";
  messageId: string;
  contextId: string;
  taskId: string;
  role: Role;
  parts: Part[];
  metadata?: JsonObject | undefined;
  extensions: string[];
  referenceTaskIds: string[];
}

export interface TaskStatus {
  readonly $typeName: "lf.a2a.v1.TaskStatus";
  state: TaskState;
  message?: Message | undefined;
  timestamp?: Timestamp | undefined;
}

export interface Artifact {
  readonly $typeName: "lf.a2a.v1.Artifact";
  artifactId: string;
  name: string;
  description: string;
  parts: Part[];
  metadata?: JsonObject | undefined;
  extensions: string[];
}

export interface Task {
  readonly $typeName: "lf.a2a.v1.Task";
  id: string;
  contextId: string;
  status?: TaskStatus | undefined;
  artifacts: Artifact[];
  history: Message[];
  metadata?: JsonObject | undefined;
}

export interface TaskStatusUpdateEvent {
  readonly $typeName: "lf.a2a.v1.TaskStatusUpdateEvent";
  taskId: string;
  contextId: string;
  status?: TaskStatus | undefined;
  metadata?: JsonObject | undefined;
}

export interface TaskArtifactUpdateEvent {
  readonly $typeName: "lf.a2a.v1.TaskArtifactUpdateEvent";
  taskId: string;
  contextId: string;
  artifact?: Artifact | undefined;
  append: boolean;
  lastChunk: boolean;
  metadata?: JsonObject | undefined;
}

export interface StreamResponse {
  readonly $typeName: "lf.a2a.v1.StreamResponse";
  payload:
    | { case: "task"; value: Task }
    | { case: "message"; value: Message }
    | { case: "statusUpdate"; value: TaskStatusUpdateEvent }
    | { case: "artifactUpdate"; value: TaskArtifactUpdateEvent }
    | { case: undefined; value?: undefined };
}

export interface SendMessageResponse {
  readonly $typeName: "lf.a2a.v1.SendMessageResponse";
  payload: { case: "task"; value: Task } | { case: "message"; value: Message } | { case: undefined; value?: undefined };
}

export interface AuthenticationInfo {
  readonly $typeName: "lf.a2a.v1.AuthenticationInfo";
  scheme: string;
  credentials: string;
}

export interface TaskPushNotificationConfig {
  readonly $typeName: "lf.a2a.v1.TaskPushNotificationConfig";
  tenant: string;
  id: string;
  taskId: string;
  url: string;
  token: string;
  authentication?: AuthenticationInfo | undefined;
}

export interface SendMessageConfiguration {
  readonly $typeName: "lf.a2a.v1.SendMessageConfiguration";
  acceptedOutputModes: string[];
  taskPushNotificationConfig?: TaskPushNotificationConfig | undefined;
  historyLength?: number | undefined;
  returnImmediately: boolean;
}

export interface SendMessageRequest {
  readonly $typeName: "lf.a2a.v1.SendMessageRequest";
  tenant: string;
  message?: Message | undefined;
  configuration?: SendMessageConfiguration | undefined;
  metadata?: JsonObject | undefined;
}

export interface GetTaskRequest {
  readonly $typeName: "lf.a2a.v1.GetTaskRequest";
  tenant: string;
  id: string;
  historyLength?: number | undefined;
}

export interface ListTasksRequest {
  readonly $typeName: "lf.a2a.v1.ListTasksRequest";
  tenant: string;
  contextId: string;
  status: TaskState;
  pageSize?: number | undefined;
  pageToken: string;
  historyLength?: number | undefined;
  statusTimestampAfter?: Timestamp | undefined;
  includeArtifacts?: boolean | undefined;
}

export interface ListTasksResponse {
  readonly $typeName: "lf.a2a.v1.ListTasksResponse";
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface CancelTaskRequest {
  readonly $typeName: "lf.a2a.v1.CancelTaskRequest";
  tenant: string;
  id: string;
  metadata?: JsonObject | undefined;
}

export interface SubscribeToTaskRequest {
  readonly $typeName: "lf.a2a.v1.SubscribeToTaskRequest";
  tenant: string;
  id: string;
}

export interface GetTaskPushNotificationConfigRequest {
  readonly $typeName: "lf.a2a.v1.GetTaskPushNotificationConfigRequest";
  tenant: string;
  taskId: string;
  id: string;
}

export interface DeleteTaskPushNotificationConfigRequest {
  readonly $typeName: "lf.a2a.v1.DeleteTaskPushNotificationConfigRequest";
  tenant: string;
  taskId: string;
  id: string;
}

export interface ListTaskPushNotificationConfigsRequest {
  readonly $typeName: "lf.a2a.v1.ListTaskPushNotificationConfigsRequest";
  tenant: string;
  taskId: string;
  pageSize: number;
  pageToken: string;
}

export interface ListTaskPushNotificationConfigsResponse {
  readonly $typeName: "lf.a2a.v1.ListTaskPushNotificationConfigsResponse";
  configs: TaskPushNotificationConfig[];
  nextPageToken: string;
}

/** The states after which a task changes no more. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.REJECTED,
]);

/** The states in which a task waits for the client: a blocking send and a stream end there too. */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set([TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED]);
