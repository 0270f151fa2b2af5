/**
 * What the runtime's fetches (the binding clients, http/client-http.ts; the card resolver,
 * card/card-resolver.ts) read of an answer:
 *
 *   redirect   an opaque redirect (fetch's `redirect: "manual"` in a browser) or a 301, 302, 303, 307,
 *              308; neither caller lets fetch follow one
 *   body       read as UTF-8 text to at most `limit` bytes (as decoded from any Content-Encoding): past
 *              it the read is canceled and the caller's error thrown, the rest never read
 *   stream     an answer is an event stream when its media type is text/event-stream, in any case
 *              (media types are case-insensitive, RFC 9110 §8.3.1), with any parameters
 */
import { mediaTypeOf } from "./media-type.js";

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Whether an answer is a redirect (module rules). */
export const isRedirect = (res: Response): boolean => res.type === "opaqueredirect" || REDIRECTS.has(res.status);

/** Whether an answer is an event stream (module rules). */
export const isEventStream = (res: Response): boolean =>
  mediaTypeOf(res.headers.get("content-type")) === "text/event-stream";

/** The body of `res` as text, at most `limit` bytes; past it `tooLarge()` is thrown (module rules). */
export async function boundedText(res: Response, limit: number, tooLarge: () => Error): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) return "";
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    text += decoder.decode(read.value, { stream: true });
  }
  return text + decoder.decode();
}
