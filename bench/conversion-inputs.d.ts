// Types of bench/conversion-inputs.js, for the TypeScript tests that import it (test/compat-vs-a2a-js.test.ts).
import type { JsonObject } from "@bufbuild/protobuf";

/** An a2a.json (v0.3) Part, as sendParams03 writes them. */
export type Part03 =
  | { kind: "text"; text: string }
  | {
      kind: "file";
      file: { uri: string; mimeType: string; name: string } | { bytes: string; mimeType: string; name: string };
    }
  | { kind: "data"; data: JsonObject };

/** v0.3 JSON-RPC message/send params (a2a.json MessageSendParams). */
export type SendParams03 = {
  message: {
    kind: "message";
    messageId: string;
    contextId: string;
    role: "user" | "agent";
    parts: Part03[];
    metadata: JsonObject;
  };
  configuration: {
    acceptedOutputModes: string[];
    blocking: boolean;
    pushNotificationConfig: {
      id: string;
      url: string;
      token: string;
      authentication: { schemes: string[]; credentials: string };
    };
  };
};

/** A v1.0 ProtoJSON Message with text parts. */
export type Message10Json = {
  messageId: string;
  contextId: string;
  taskId: string;
  role: "ROLE_USER" | "ROLE_AGENT";
  parts: { text: string }[];
};

/** A v1.0 ProtoJSON Part of an artifact: text, file by URL, raw bytes (base64), data. */
export type ArtifactPart10Json =
  | { text: string; mediaType: string }
  | { url: string; mediaType: string; filename: string }
  | { raw: string; mediaType: string }
  | { data: JsonObject };

/** A v1.0 ProtoJSON Task. */
export type Task10Json = {
  id: string;
  contextId: string;
  status: { state: string; timestamp: string; message: Message10Json };
  artifacts: {
    artifactId: string;
    name: string;
    description: string;
    parts: ArtifactPart10Json[];
    metadata: JsonObject;
  }[];
  history: Message10Json[];
  metadata: JsonObject;
};

/** A typical v0.3 message/send: text, file by URI, file by bytes, data; blocking; a push config. */
export function sendParams03(): SendParams03;

/** A v1.0 Task (ProtoJSON) with 10 artifacts of every part kind. */
export function task10Json(): Task10Json;
