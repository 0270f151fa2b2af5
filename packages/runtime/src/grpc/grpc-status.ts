/**
 * An A2A error as a gRPC status (spec §10.6): the catalog's code, by its name (grpcCode), and for a
 * trailers-only answer the three fields that carry it (trailersOnlyStatus): grpc-status, grpc-message
 * (percent-encoded, gRPC over HTTP/2: Status-Message) and grpc-status-details-bin, a google.rpc.Status holding
 * the error's ErrorInfo. Written where no connect handler answers: a call refused before its method runs.
 */
import { anyPack } from "@bufbuild/protobuf/wkt";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import type { A2aServiceDefinition } from "../core/definition.js";
import { grpcStatusOf } from "../core/a2a-error.js";
import { ErrorInfoSchema, StatusSchema } from "../core/error-info.js";

/** The connect Code of a canonical status name ("FAILED_PRECONDITION"); Unknown for any other name. */
export function grpcCode(name: string): Code {
  const key = name
    .toLowerCase()
    .split("_")
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("") as keyof typeof Code;
  return (Code[key] as Code | undefined) ?? Code.Unknown;
}

/** grpc-status, grpc-message and grpc-status-details-bin of an error (module rules). */
export function trailersOnlyStatus(def: A2aServiceDefinition, error: unknown): Record<string, string> {
  const s = grpcStatusOf(def, error);
  const code = grpcCode(s.status);
  const info = create(ErrorInfoSchema, { reason: s.reason ?? "", domain: s.domain } as never);
  const status = create(StatusSchema, {
    code,
    message: capped(s.message),
    details: s.reason ? [anyPack(ErrorInfoSchema, info)] : [],
  } as never);
  const bin = toBinary(StatusSchema, status);
  return {
    "grpc-status": String(code),
    "grpc-message": grpcMessage(s.message),
    "grpc-status-details-bin": btoa(String.fromCharCode(...bin)).replace(/=+$/, ""),
  };
}

/**
 * grpc-message, percent-encoded as gRPC over HTTP/2 says (Status-Message): the UTF-8 bytes outside 0x20-0x7E,
 * and "%", are %XX; the rest is sent as it is. (encodeURIComponent also encoded ":", ";", "/", " "..., which
 * grpc-js, decoding with decodeURI, showed its users as "%3A".) At most MAX_GRPC_MESSAGE characters of the
 * text are sent, here and in the details, since a refusal may echo what the call sent (its a2a-version).
 */
export function grpcMessage(text: string): string {
  return capped(text).replace(/[^\x20-\x24\x26-\x7e]+/g, percentEncoded);
}

const utf8 = new TextEncoder();

/** Each UTF-8 byte of `run` as %XX (a lone surrogate as U+FFFD's bytes). */
function percentEncoded(run: string): string {
  let out = "";
  for (const byte of utf8.encode(run)) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/** The most characters of a status message put in grpc-message and in grpc-status-details-bin. */
export const MAX_GRPC_MESSAGE = 1024;

/** The text, cut to MAX_GRPC_MESSAGE characters with "..." when longer. */
const capped = (text: string) => (text.length > MAX_GRPC_MESSAGE ? `${text.slice(0, MAX_GRPC_MESSAGE)}...` : text);
