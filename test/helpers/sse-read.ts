/**
 * Reads a text/event-stream response body as its events, written here rather than taken from the runtime so the
 * checks of the runtime's streams do not rest on its own decoder. The subset of the WHATWG event-stream format
 * the A2A bindings use: events end at a blank line; `data:` lines are joined with "\n" (one leading space
 * dropped); `event:` names the event; comment lines (":") and other fields are skipped; LF or CRLF ends a line
 * (a lone CR, which the format also allows, is not handled: no server here writes one). An event without data is not dispatched; a partial event at the end of the stream is dropped.
 */

export interface RawSseEvent {
  /** The `event` field, when the event has one. */
  readonly event?: string;
  readonly data: string;
}

/** One event block's lines as an event, or undefined when it has no data line. */
function eventOf(lines: readonly string[]): RawSseEvent | undefined {
  const data: string[] = [];
  let event: string | undefined;
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon === 0) continue;
    const name = colon < 0 ? line : line.slice(0, colon);
    const raw = colon < 0 ? "" : line.slice(colon + 1);
    const value = raw.startsWith(" ") ? raw.slice(1) : raw;
    if (name === "data") data.push(value);
    else if (name === "event") event = value;
  }
  if (data.length === 0) return undefined;
  return event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") };
}

/** The events of `body` as they arrive. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<RawSseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let lines: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      for (const part of parts) {
        const line = part.endsWith("\r") ? part.slice(0, -1) : part;
        if (line !== "") {
          lines.push(line);
          continue;
        }
        const event = eventOf(lines);
        lines = [];
        if (event) yield event;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
