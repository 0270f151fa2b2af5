/**
 * Typed reads of JSON response bodies. Response.json() is `unknown`; a test names the shape it expects
 * (a JSON-RPC success or error envelope, a REST body) and reads it as that. Nothing is checked at run time:
 * the test's own assertions do that.
 */

/** The body of a response as T. */
export async function readJson<T>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

/** A JSON-RPC 2.0 error object. */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC 2.0 response that the test expects to carry a result. */
export interface JsonRpcSuccess<R> {
  jsonrpc: "2.0";
  id: number | string | null;
  result: R;
  error?: undefined;
}

/** A JSON-RPC 2.0 response that the test expects to carry an error. */
export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: number | string | null;
  error: JsonRpcError;
  result?: undefined;
}

/** One entry of google.rpc.Status details, as the v1.0 HTTP+JSON binding sends it (ErrorInfo fields). */
export interface StatusDetail {
  "@type": string;
  reason?: string;
  domain?: string;
  metadata?: Record<string, string>;
}

/** A v1.0 HTTP+JSON error body: google.rpc.Status under "error". */
export interface RestError {
  error: { code: number; status: string; message: string; details: StatusDetail[] };
}

// v1.0 ProtoJSON bodies, with the fields the tests read (ProtoJSON omits empty repeated fields, hence the optional arrays).

export interface PartJson {
  text?: string;
  url?: string;
  raw?: string;
  data?: unknown;
  mediaType?: string;
  filename?: string;
  metadata?: Record<string, unknown>;
}

export interface MessageJson {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: string;
  parts: PartJson[];
}

export interface ArtifactJson {
  artifactId: string;
  name?: string;
  parts: PartJson[];
}

export interface TaskJson {
  id: string;
  contextId: string;
  status: { state: string; message?: MessageJson; timestamp?: string };
  artifacts?: ArtifactJson[];
  history?: MessageJson[];
}

/** SendMessageResponse when the agent answers with a task. */
export interface SendMessageTaskJson {
  task: TaskJson;
}

export interface ListTasksResponseJson {
  tasks: TaskJson[];
  totalSize: number;
  pageSize: number;
  nextPageToken: string;
}

export interface AgentInterfaceJson {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

export interface AgentCardJson {
  name: string;
  supportedInterfaces: AgentInterfaceJson[];
}
