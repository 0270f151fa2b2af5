/**
 * The types every cross-version conversion shares: what a conversion could
 * not carry over (Loss, told once per field whatever the path), the message
 * converter between two proto versions, and the a2a.json codec of a JSON-RPC
 * dialect (generated: <base>_jsonrpc_codec). Types only: the modules that implement them import this one, and
 * it imports none of them.
 */
import type { DescMessage, JsonValue, Message, Registry } from "@bufbuild/protobuf";

/** Something a conversion could not carry over. */
export interface Loss {
  /** Field path in the source message, e.g. "message.parts[0].filename". */
  readonly path: string;
  readonly reason: string;
}

export type Direction = "toOlder" | "toNewer";

export interface Converter {
  /** Converts to the other version; what could not be carried over is returned in `lost` (and passed to `onLoss`). */
  convert<T extends Message>(
    message: Message,
    direction: Direction,
    onLoss?: (loss: Loss) => void,
  ): { message: T; lost: Loss[] };
  /**
   * Converts an operation's request to `target`, the request type of the same operation in the other version:
   * by the request's pair, or by a wrapped request (an older request that holds the counterpart of the newer
   * one in a field, as v0.3 Create does). A request that converts to neither throws.
   */
  convertRequest<T extends Message>(
    message: Message,
    target: string,
    onLoss?: (loss: Loss) => void,
  ): { message: T; lost: Loss[] };
  /** The counterpart type name of a message type, if it has one. */
  counterpart(typeName: string): string | undefined;
  readonly registry: Registry;
}

export type OnDrop = (path: string, reason: string) => void;

export interface DialectCodec {
  /** Encodes; what a2a.json cannot hold is reported to `onDrop`, never dropped silently. */
  encode(desc: DescMessage, json: JsonValue, onDrop?: OnDrop): JsonValue;
  /** Decodes; what the proto cannot hold is reported to `onDrop`, never dropped silently. */
  decode(desc: DescMessage, json: JsonValue, onDrop?: OnDrop): JsonValue;
}

/** What the JSON request checks (json-request-check.ts, validate.ts) read of a JSON-RPC dialect. */
export interface JsonRpcNames {
  /** Enum value name → its dialect spelling. */
  readonly enums: Readonly<Record<string, string>>;
  /** The part message, whose `kind` a request must carry. */
  readonly part: string;
  /** Requests whose dialect form is one of their fields. */
  readonly wrappers: readonly { readonly message: string; readonly field: string }[];
  /** "pkg.Message.field" → dialect key. */
  readonly renames: Readonly<Record<string, string>>;
  /**
   * "pkg.Message.field" of a resource name the dialect spells as separate ids, or of a wrapper's field derived
   * from its ids → its pattern, each id as the request names it (`tasks/{id}`, `{pushNotificationConfig.id}`),
   * and the ids after the first that a request may leave out. A check names a name without an id by that id.
   */
  readonly resourceNames?: Readonly<Record<string, ResourceNamePattern>>;
}

/** A resource name as a JSON-RPC dialect spells it: `tasks/{id}/pushNotificationConfigs/{pushNotificationConfigId}`. */
export interface ResourceNamePattern {
  readonly pattern: string;
  /** Ids (after the first) a request may leave out. */
  readonly optional?: readonly string[];
}

/** The generated a2a.json codec of a version (v0.3), and the names its request checks read. */
export interface JsonRpcCodec extends DialectCodec {
  readonly names: JsonRpcNames;
}
