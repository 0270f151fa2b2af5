/**
 * The checks a push config passes before it is stored, whether it comes from CreateTaskPushNotificationConfig
 * (push-configs.ts) or from SendMessage's configuration.taskPushNotificationConfig (send-start.ts). The fields a
 * delivery writes into the webhook request's headers (push.ts pushHeaders: X-A2A-Notification-Token, and
 * Authorization: <scheme> <credentials>) must be header field values (RFC 9110 §5.5), or every delivery of the
 * config fails and a line break in them is header injection material:
 *
 *   token, authentication.scheme, authentication.credentials
 *     allowed    HTAB, U+0020-U+007E, U+00A0-U+00FF (obs-text, sent as Latin-1 by node:http)
 *     refused    C0 controls but HTAB (NUL, CR, LF, ESC ...), DEL, C1 controls U+0080-U+009F (obs-text lets them
 *                through, but U+0085 is a line break to some readers and no credential needs them), and every
 *                character above U+00FF (node:http cannot send it: ERR_INVALID_CHAR)
 *   url          no control character at all (C0 with HTAB, DEL, C1): a URL parser drops tabs and line breaks
 *                silently, so the stored URL would not be the one requested; other characters are the URL
 *                parser's business (an IDN host is fine), then the sender screens it (url-screen.ts)
 *   id           no control character either (when the caller names it): ids are shown in messages and log
 *                lines (push.ts), where a line break would let a caller write a line of its own; and no "/": the
 *                id is a path segment of the config's HTTP+JSON routes, where v1.0 reads %2F as "/" and v0.3
 *                keeps it as sent, so the config could not be named on both; for the same reason not "." or
 *                "..", which a URL resolves away
 *   each         at most MAX_PUSH_FIELD_LENGTH (4096) characters: far above any real token or URL, and below the
 *                header limits of common servers (8 KiB in node:http, nginx, Apache)
 *
 * A refusal is InvalidParamsError naming the operation, the field path, and the first bad character by code
 * point and index; never the value, which may be a secret (S10 §13.2: tokens are secrets).
 */
import { A2AError } from "../core/a2a-error.js";
import type { TaskPushNotificationConfig } from "./a2a-types.js";
import type { PushSender } from "./push-types.js";

/** The longest token, authentication scheme, credentials or URL a push config may hold, in characters. */
export const MAX_PUSH_FIELD_LENGTH = 4096;

/** Where the config sits in the request, for messages. */
export interface PushConfigPlace {
  /** e.g. "SendMessage". */
  readonly operation: string;
  /**
   * The config's field path in the request with a trailing dot, e.g. "configuration.taskPushNotificationConfig.";
   * "" when the request is the config.
   */
  readonly path: string;
}

type FieldKind = "header value" | "URL" | "id";

const isControl = (code: number) => (code < 0x20 && code !== 0x09) || (code >= 0x7f && code <= 0x9f);

const SLASH = 0x2f;

/** Whether a character (a code point) is refused in a field of this kind; a URL refuses HTAB too, an id "/". */
function refused(code: number, kind: FieldKind): boolean {
  if (kind === "id" && code === SLASH) return true;
  if (kind !== "header value") return code === 0x09 || isControl(code);
  return isControl(code) || code > 0xff;
}

function describe(code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code === SLASH) return `${hex} ("/")`;
  return code <= 0xff ? `${hex}, a control character,` : `${hex}, a character above U+00FF,`;
}

function checkField(value: string, field: string, place: PushConfigPlace, kind: FieldKind): void {
  const where = `${place.operation}: ${place.path}${field}`;
  if (value.length > MAX_PUSH_FIELD_LENGTH) {
    const limit = `is ${value.length} characters long, more than ${MAX_PUSH_FIELD_LENGTH}`;
    throw new A2AError("InvalidParamsError", `${where} ${limit}`);
  }
  let index = 0;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (refused(code, kind)) {
      const carrier = kind === "URL" ? "a URL" : kind === "id" ? "an id" : "an HTTP header value";
      throw new A2AError(
        "InvalidParamsError",
        `${where} holds ${describe(code)} at index ${index}, which ${carrier} cannot carry`,
      );
    }
    index += char.length;
  }
  if (kind === "id" && (value === "." || value === "..")) {
    throw new A2AError("InvalidParamsError", `${where} is "${value}", which an id cannot be: a URL resolves it away`);
  }
}

/** Refuses a config whose header fields or URL no delivery could send (see the header), then screens its URL. */
export async function checkPushConfig(
  sender: PushSender,
  config: TaskPushNotificationConfig,
  place: PushConfigPlace,
): Promise<void> {
  checkField(config.id, "id", place, "id");
  checkField(config.url, "url", place, "URL");
  checkField(config.token, "token", place, "header value");
  if (config.authentication) {
    checkField(config.authentication.scheme, "authentication.scheme", place, "header value");
    checkField(config.authentication.credentials, "authentication.credentials", place, "header value");
  }
  await sender.checkUrl(config.url);
}
