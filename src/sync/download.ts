/**
 * Downloads one pinned file with node's global fetch (Node 20), bounded by a timeout and a size.
 *
 * Rule: any failure is a single-line SyncError that names the URL: the network error
 * (taken from the fetch error's cause: ECONNREFUSED, ENOTFOUND, ...), the timeout, a status
 * other than 200, or a body larger than `maxBytes` (refused on its Content-Length before
 * the body is read, else cut off as soon as it goes past), each followed by the caller's
 * hint. No retries, no cache; the caller checks the sha256 of what comes back.
 */
import { SyncError } from "./sync-error.js";

/** Default bound on one download, headers and body together. */
export const defaultTimeoutMs = 30_000;

export async function download(url: string, timeoutMs: number, maxBytes: number, hint: string): Promise<Buffer> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (response.status !== 200) {
      await response.body?.cancel();
      const text = response.statusText ? ` ${response.statusText}` : "";
      throw new SyncError(`${url}: HTTP ${response.status}${text}. ${hint}`);
    }
    return await boundedBody(url, response, maxBytes, hint);
  } catch (e) {
    if (e instanceof SyncError) throw e;
    throw new SyncError(`${url}: cannot download: ${reason(e, timeoutMs)}. ${hint}`);
  }
}

/** The body, at most maxBytes of it: a larger one is cancelled (the connection closed), never held whole. */
async function boundedBody(url: string, response: Response, maxBytes: number, hint: string): Promise<Buffer> {
  const tooLarge = (size: string) =>
    new SyncError(`${url}: the response is ${size}; a pinned file is at most ${maxBytes} bytes. ${hint}`);
  const announced = Number(response.headers.get("content-length") ?? "");
  if (announced > maxBytes) {
    await response.body?.cancel();
    throw tooLarge(`${announced} bytes (Content-Length)`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw tooLarge(`more than ${maxBytes} bytes (cut off there)`);
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks, total);
}

/** One line saying why fetch failed: the timeout, or the innermost cause's message or code. */
function reason(e: unknown, timeoutMs: number): string {
  const name = e instanceof Error ? e.name : "";
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${timeoutMs / 1000} s`;
  let inner: unknown = e;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  if (inner instanceof AggregateError && inner.errors[0] instanceof Error) inner = inner.errors[0];
  if (!(inner instanceof Error)) return String(inner);
  const code = (inner as NodeJS.ErrnoException).code;
  const text = inner.message || code || inner.name;
  return text.replace(/\s+/g, " ").trim();
}
