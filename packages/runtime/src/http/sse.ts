/**
 * Server-Sent Events (text/event-stream) codec, used by A2A JSON-RPC and
 * HTTP+JSON streaming. It implements the WHATWG HTML "event stream" format
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream):
 *
 *   stream  = [ BOM ] *event
 *   event   = *( comment / field ) end-of-line
 *   comment = ":" *any-char end-of-line
 *   field   = name [ ":" [ " " ] *any-char ] end-of-line
 *   end-of-line = CRLF / LF / CR
 *
 * - The stream is UTF-8; invalid bytes decode to U+FFFD. One U+FEFF at the
 *   very start of the stream is ignored.
 * - A field line is split at its first ":"; one leading space of the value is
 *   stripped. A line with no ":" is a field with an empty value.
 * - `data` appends the value plus "\n" to the data buffer; on dispatch the
 *   final "\n" is removed, so several `data` lines are joined with "\n".
 *   (`data:` with an empty value therefore yields data "".)
 * - `event` sets the event type (empty → "message"); `id` sets the last event
 *   ID unless the value contains U+0000 (it persists across events, as in
 *   EventSource's lastEventId; "id:" with an empty value resets it);
 *   `retry` with only ASCII digits sets the reconnection time. Other fields
 *   are ignored, as are comment lines.
 * - A blank line dispatches the event, unless no `data` line was seen, in
 *   which case the event type is reset and nothing is dispatched.
 * - At end of stream, a trailing partial line or undispatched event is discarded.
 *
 * Line breaks inside data cannot be represented literally: the encoder turns
 * every CRLF, CR and LF in the data into a separate `data:` line, so the
 * decoder returns them all as "\n".
 */

/** Any line break an event stream recognises; used to split data for encoding. */
const lineBreak = /\r\n|\r|\n/;
const asciiDigits = /^[0-9]+$/;
const CR = 13;
const LF = 10;
const BOM = "\uFEFF";

export interface SseEvent {
  /** The event type; "message" when the stream gave none. */
  event: string;
  data: string;
  /**
   * The last event ID in effect when this event was dispatched (EventSource's
   * `lastEventId`: it carries over from earlier events until another `id`
   * field changes it). Absent while it is the empty string.
   */
  id?: string;
}

export interface EncodeSseEventOptions {
  event?: string | undefined;
  id?: string | undefined;
}

export interface DecodeSseOptions {
  /** When aborted, decoding stops (the generator returns) and the source is closed. */
  signal?: AbortSignal;
  /** Called with the value of each valid `retry` field, in milliseconds. */
  onRetry?: (ms: number) => void;
  /**
   * The longest event, in characters of its lines (data and the line being read): past it decoding throws an
   * SseEventTooLongError and the source is closed. Default: no bound.
   */
  maxEventChars?: number;
}

/** An event longer than DecodeSseOptions.maxEventChars. */
export class SseEventTooLongError extends Error {
  override name = "SseEventTooLongError";
}

function assertSingleLine(what: string, value: string): void {
  if (value.includes("\n") || value.includes("\r")) {
    throw new TypeError(`SSE ${what} must not contain CR or LF: ${JSON.stringify(value)}`);
  }
}

/**
 * Encodes one event. Each line of `data` (split at CRLF, CR or LF) becomes its
 * own `data:` line; the event ends with a blank line. Throws TypeError if
 * `event` or `id` contains a line break, or `id` contains U+0000.
 */
export function encodeSseEvent(data: string, opts?: EncodeSseEventOptions): string {
  let out = "";
  if (opts?.event !== undefined) {
    assertSingleLine("event name", opts.event);
    out += `event: ${opts.event}\n`;
  }
  if (opts?.id !== undefined) {
    assertSingleLine("id", opts.id);
    if (opts.id.includes("\0")) throw new TypeError(`SSE id must not contain U+0000: ${JSON.stringify(opts.id)}`);
    out += `id: ${opts.id}\n`;
  }
  for (const line of data.split(lineBreak)) out += `data: ${line}\n`;
  return out + "\n";
}

/**
 * A comment (e.g. a keep-alive), one ": " line per line of `text`. It has no
 * trailing blank line, so it can never dispatch or reset an event.
 */
export function sseComment(text: string): string {
  let out = "";
  for (const line of text.split(lineBreak)) out += line === "" ? ":\n" : `: ${line}\n`;
  return out;
}

/** The incremental parser: feed it text, it returns the events completed so far. */
class SseParser {
  private bomChecked = false;
  /** The previous text ended in CR, so a leading LF belongs to that line break. */
  private skipLf = false;
  /** Pieces of the current, not yet terminated line. */
  private partial: string[] = [];
  private data: string[] = [];
  private sawData = false;
  private eventType = "";
  private lastEventId = "";
  /** Characters of the current event: its lines so far and the line being read. */
  private length = 0;

  constructor(
    private readonly onRetry: ((ms: number) => void) | undefined,
    private readonly maxChars = Number.POSITIVE_INFINITY,
  ) {}

  /** Counts `n` more characters of the current event, throwing past the bound. */
  private grow(n: number): void {
    this.length += n;
    if (this.length > this.maxChars) {
      throw new SseEventTooLongError(`an event of the stream is longer than ${this.maxChars} characters`);
    }
  }

  feed(text: string, out: SseEvent[]): void {
    if (text === "") return;
    if (!this.bomChecked) {
      this.bomChecked = true;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    let i = 0;
    const n = text.length;
    if (this.skipLf && n > 0) {
      this.skipLf = false;
      if (text.charCodeAt(0) === LF) i = 1;
    }
    // Next CR and LF at or after i, each searched for again only once passed: linear.
    let cr = text.indexOf("\r", i);
    let lf = text.indexOf("\n", i);
    while (i < n) {
      if (cr !== -1 && cr < i) cr = text.indexOf("\r", i);
      if (lf !== -1 && lf < i) lf = text.indexOf("\n", i);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) {
        this.grow(n - i);
        this.partial.push(text.slice(i));
        return;
      }
      let line = text.slice(i, end);
      this.grow(line.length);
      if (this.partial.length > 0) {
        this.partial.push(line);
        line = this.partial.join("");
        this.partial = [];
      }
      i = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (i === n) this.skipLf = true;
        else if (text.charCodeAt(i) === LF) i++;
      }
      this.line(line, out);
    }
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === "") {
      if (this.sawData) {
        const ev: SseEvent = { event: this.eventType === "" ? "message" : this.eventType, data: this.data.join("\n") };
        if (this.lastEventId !== "") ev.id = this.lastEventId;
        out.push(ev);
      }
      this.data = [];
      this.sawData = false;
      this.eventType = "";
      this.length = 0;
      return;
    }
    const colon = line.indexOf(":");
    if (colon === 0) {
      this.length -= line.length; // a comment (a keep-alive) is no part of the event
      return;
    }
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = "";
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case "data":
        this.data.push(value);
        this.sawData = true;
        break;
      case "event":
        this.eventType = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastEventId = value;
        break;
      case "retry":
        if (asciiDigits.test(value)) this.onRetry?.(Number(value));
        break;
      default:
        break;
    }
  }
}

/** The SSE parser fed with chunks of bytes or text: bytes go through one streaming UTF-8 decoder. */
class ChunkParser {
  private readonly parser: SseParser;
  // ignoreBOM: keep U+FEFF in the output; the parser strips it once at stream start,
  // whether the stream arrives as bytes or strings.
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private decoderDirty = false;

  constructor(onRetry: DecodeSseOptions["onRetry"], maxEventChars: number | undefined) {
    this.parser = new SseParser(onRetry, maxEventChars);
  }

  feed(chunk: Uint8Array | string, events: SseEvent[]): void {
    if (typeof chunk === "string") {
      this.flush(events); // an unfinished character becomes U+FFFD
      this.parser.feed(chunk, events);
    } else {
      this.decoderDirty = true;
      this.parser.feed(this.decoder.decode(chunk, { stream: true }), events);
    }
  }

  /** Ends the bytes decoded so far (an unfinished character becomes U+FFFD). */
  flush(events: SseEvent[]): void {
    if (!this.decoderDirty) return;
    this.decoderDirty = false;
    this.parser.feed(this.decoder.decode(), events);
  }
}

/**
 * Decodes an event stream delivered in chunks of any size: bytes (UTF-8,
 * decoded incrementally, so a character, a CRLF or a line may be split
 * anywhere) or already-decoded strings. Yields each dispatched event; a
 * trailing partial event is discarded. Stops, closing the source, when
 * `opts.signal` aborts, including while waiting for the next chunk.
 */
export async function* decodeSse(
  chunks: AsyncIterable<Uint8Array | string>,
  opts?: DecodeSseOptions,
): AsyncGenerator<SseEvent> {
  const signal = opts?.signal;
  if (signal?.aborted) return;
  const parser = new ChunkParser(opts?.onRetry, opts?.maxEventChars);
  const it = chunks[Symbol.asyncIterator]();
  let finished = false;
  let pendingNext = false;

  let onAbort: (() => void) | undefined;
  const aborted =
    signal &&
    new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      signal.addEventListener("abort", onAbort, { once: true });
    });

  try {
    const events: SseEvent[] = [];
    for (;;) {
      const next = it.next();
      let r: IteratorResult<Uint8Array | string> | "aborted";
      try {
        if (aborted) {
          pendingNext = true;
          next.catch(() => {}); // may settle after we stop listening
          r = await Promise.race([next, aborted]);
          pendingNext = r === "aborted";
        } else {
          r = await next;
        }
      } catch (err) {
        finished = true; // the source failed; like for-await, don't call its return()
        throw err;
      }
      if (r === "aborted") return;
      if (r.done) {
        finished = true;
        parser.flush(events);
        break;
      }
      parser.feed(r.value, events);
      for (const ev of events) {
        if (signal?.aborted) return;
        yield ev;
      }
      events.length = 0;
    }
    // Events completed by the decoder's final flush (only possible in theory).
    for (const ev of events) {
      if (signal?.aborted) return;
      yield ev;
    }
  } finally {
    if (signal && onAbort) signal.removeEventListener("abort", onAbort);
    if (!finished && it.return) {
      // With a next() still pending, an async generator would queue return()
      // behind it, so don't wait for it.
      const closing = Promise.resolve()
        .then(() => it.return?.())
        .catch(() => {});
      if (!pendingNext) await closing;
    }
  }
}

/**
 * Turns a fetch Response body into an async iterable of its chunks (nothing
 * for a null body). It reads through a reader rather than relying on the
 * stream being async-iterable; returning early (e.g. decodeSse stopping)
 * cancels the stream, even while a read is pending.
 */
export function sseStreamFromResponse(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      if (body === null) {
        return { next: async () => ({ done: true, value: undefined }) };
      }
      const reader = body.getReader();
      const release = () => {
        try {
          reader.releaseLock();
        } catch {
          // already released, or a read still pending on an old runtime
        }
      };
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        try {
          await reader.cancel();
        } finally {
          release();
        }
      };
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          if (closed) return { done: true, value: undefined };
          let r: Awaited<ReturnType<typeof reader.read>>;
          try {
            r = await reader.read();
          } catch (err) {
            closed = true;
            release();
            throw err;
          }
          if (r.done) {
            closed = true;
            release();
            return { done: true, value: undefined };
          }
          return { done: false, value: r.value };
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          await close();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
