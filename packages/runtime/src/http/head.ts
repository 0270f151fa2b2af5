/**
 * HEAD is GET without the body (RFC 9110 §9.3.2): the same status and
 * headers, Content-Length included. So the answer to HEAD is built from the
 * GET answer: a text body is dropped and its length in UTF-8 bytes goes into
 * `content-length`; a stream (whose GET sends no length) is closed unread.
 * The adapters send a HEAD answer's headers as they are (node-listener.ts, fetch-handler.ts).
 */
import type { CoreResponse } from "../core/server-types.js";
import { headerRecord } from "../core/records.js";

const encoder = new TextEncoder();

/** The answer to HEAD made from the answer to the same request as a GET. */
export function headOf(res: CoreResponse): CoreResponse {
  if (typeof res.body !== "string") {
    void Promise.resolve(res.body[Symbol.asyncIterator]().return?.()).catch(() => {});
    return { ...res, body: "" };
  }
  const length = String(encoder.encode(res.body).length);
  return { ...res, headers: headerRecord(res.headers, { "content-length": length }), body: "" };
}
