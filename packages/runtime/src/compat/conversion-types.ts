/**
 * The types every cross-version conversion shares: what a conversion could
 * not carry over (Loss, told once per field whatever the path), the message
 * converter between two proto versions, and the a2a.json codec of a JSON-RPC
 * dialect. Types only: the modules that implement them import this one, and
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
