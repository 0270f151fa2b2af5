import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodeSse,
  encodeSseEvent,
  sseComment,
  sseStreamFromResponse,
  type SseEvent,
} from "../../packages/runtime/src/http/sse.js";

const utf8 = new TextEncoder();

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function collect(source: AsyncIterable<SseEvent>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of source) out.push(ev);
  return out;
}

const decodeString = (text: string) => collect(decodeSse(fromArray([text])));

/** Splits `whole` at the given positions (any order, duplicates allowed). */
function splitAt<T extends { slice(a: number, b?: number): T; length: number }>(whole: T, cuts: number[]): T[] {
  const points = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
  const parts: T[] = [];
  let prev = 0;
  for (const p of points) {
    parts.push(whole.slice(prev, p));
    prev = p;
  }
  parts.push(whole.slice(prev));
  return parts;
}

// Data: arbitrary code points (no lone surrogates, which UTF-8 cannot carry) mixed
// with every kind of line break, emoji, BOM, NUL, U+2028 and colons/spaces.
const dataArb = fc
  .array(
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 8 }),
      fc.constantFrom("\n", "\r", "\r\n", "\n\r", "😀", "👩‍👩‍👧", "\uFEFF", "\0", "\u2028", ":", " ", "é", "data: x"),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));
const noLineBreak = (s: string) => !s.includes("\n") && !s.includes("\r");
const eventNameArb = fc.option(fc.string({ unit: "binary", maxLength: 10 }).filter(noLineBreak), { nil: undefined });
const idArb = fc.option(
  fc.string({ unit: "binary", maxLength: 10 }).filter((s) => noLineBreak(s) && !s.includes("\0")),
  { nil: undefined },
);
const eventsArb = fc.array(fc.record({ data: dataArb, event: eventNameArb, id: idArb }), { maxLength: 8 });
type Input = { data: string; event: string | undefined; id: string | undefined };

function encodeAll(events: Input[], withComments: boolean): string {
  return events
    .map(
      (e, i) =>
        (withComments && i % 2 === 0 ? sseComment(`keep-alive ${i}`) : "") +
        encodeSseEvent(e.data, { event: e.event, id: e.id }),
    )
    .join("");
}

/**
 * What the spec says decoding gives back: CRLF and CR in data read as LF, an empty
 * event name as "message", and the id as the last event ID in effect (it carries over
 * from earlier events until another id field; "" means none).
 */
function expected(events: Input[]): SseEvent[] {
  let lastId = "";
  return events.map((e) => {
    if (e.id !== undefined) lastId = e.id;
    const ev: SseEvent = { event: e.event || "message", data: e.data.replace(/\r\n|\r/g, "\n") };
    if (lastId !== "") ev.id = lastId;
    return ev;
  });
}

describe("decodeSse round trip (property)", () => {
  it("decodes encoded events at any byte chunking", async () => {
    await fc.assert(
      fc.asyncProperty(
        eventsArb,
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.boolean(),
        async (events, cuts, comments) => {
          const bytes = utf8.encode(encodeAll(events, comments));
          const decoded = await collect(decodeSse(fromArray(splitAt(bytes, cuts))));
          expect(decoded).toEqual(expected(events));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("decodes encoded events at any string chunking (surrogate pairs may be split too)", async () => {
    await fc.assert(
      fc.asyncProperty(eventsArb, fc.array(fc.nat(), { maxLength: 20 }), async (events, cuts) => {
        const text = encodeAll(events, true);
        const decoded = await collect(decodeSse(fromArray(splitAt(text, cuts))));
        expect(decoded).toEqual(expected(events));
      }),
      { numRuns: 300 },
    );
  });

  it("gives the same events for every single split point and for 1-byte chunks", async () => {
    const text =
      "\uFEFF: hi\r\nevent: ünï\r\nid: 7\r\ndata: 😀 a\r\ndata:b\r\r" +
      "data: €\n\ndata: x\rdata: y\r\n\r\n" +
      "data: partial";
    const want: SseEvent[] = [
      { event: "ünï", data: "😀 a\nb", id: "7" },
      { event: "message", data: "€", id: "7" },
      { event: "message", data: "x\ny", id: "7" },
    ];
    const bytes = utf8.encode(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(await collect(decodeSse(fromArray([bytes.slice(0, cut), bytes.slice(cut)])))).toEqual(want);
    }
    const single = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(await collect(decodeSse(fromArray(single)))).toEqual(want);
  });
});

describe("decodeSse grammar", () => {
  it("accepts LF, CRLF and CR line endings", async () => {
    const want = [
      { event: "a", data: "1\n2" },
      { event: "message", data: "3" },
    ];
    expect(await decodeString("event: a\ndata: 1\ndata: 2\n\ndata: 3\n\n")).toEqual(want);
    expect(await decodeString("event: a\r\ndata: 1\r\ndata: 2\r\n\r\ndata: 3\r\n\r\n")).toEqual(want);
    expect(await decodeString("event: a\rdata: 1\rdata: 2\r\rdata: 3\r\r")).toEqual(want);
    expect(await decodeString("event: a\r\ndata: 1\rdata: 2\n\r\ndata: 3\r\r")).toEqual(want);
  });

  it("treats CR then LF in separate chunks as one line break", async () => {
    const events = await collect(decodeSse(fromArray(["data: a\r", "\ndata: b\r", "\n\r", "\n"])));
    expect(events).toEqual([{ event: "message", data: "a\nb" }]);
  });

  it("dispatches on CR without waiting for a possible LF", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* source() {
      yield "data: now\r\r";
      await gate;
    }
    const it = decodeSse(source())[Symbol.asyncIterator]();
    expect(await it.next()).toEqual({ done: false, value: { event: "message", data: "now" } });
    release();
    expect((await it.next()).done).toBe(true);
  });

  it("ignores comment lines", async () => {
    expect(await decodeString(": keep-alive\ndata: a\n:another\ndata: b\n\n:\n\n")).toEqual([
      { event: "message", data: "a\nb" },
    ]);
  });

  it("ignores a BOM at the start only", async () => {
    expect(await decodeString("\uFEFFdata: a\n\n")).toEqual([{ event: "message", data: "a" }]);
    const bytes = utf8.encode("\uFEFFdata: a\n\n");
    expect(await collect(decodeSse(fromArray([bytes.slice(0, 1), bytes.slice(1, 2), bytes.slice(2)])))).toEqual([
      { event: "message", data: "a" },
    ]);
    // A second BOM is part of the field name, so the line is an unknown field.
    expect(await decodeString("\uFEFF\uFEFFdata: a\n\ndata: \uFEFFb\n\n")).toEqual([
      { event: "message", data: "\uFEFFb" },
    ]);
  });

  it("strips exactly one space after the colon", async () => {
    expect(await decodeString("data:a\n\n")).toEqual([{ event: "message", data: "a" }]);
    expect(await decodeString("data: a\n\n")).toEqual([{ event: "message", data: "a" }]);
    expect(await decodeString("data:  a \n\n")).toEqual([{ event: "message", data: " a " }]);
    expect(await decodeString("data:\ta\n\n")).toEqual([{ event: "message", data: "\ta" }]);
    expect(await decodeString("event:x\ndata:1\n\n")).toEqual([{ event: "x", data: "1" }]);
  });

  it("handles empty data values and fields without a colon", async () => {
    expect(await decodeString("data:\n\n")).toEqual([{ event: "message", data: "" }]);
    expect(await decodeString("data\n\n")).toEqual([{ event: "message", data: "" }]);
    expect(await decodeString("data:\ndata:\n\n")).toEqual([{ event: "message", data: "\n" }]);
    expect(await decodeString("data: a\ndata\ndata: b\n\n")).toEqual([{ event: "message", data: "a\n\nb" }]);
  });

  it("does not dispatch an event without data, and resets the event type", async () => {
    expect(await decodeString("event: x\n\ndata: a\n\n")).toEqual([{ event: "message", data: "a" }]);
    expect(await decodeString("\n\n\nid: 1\n\n")).toEqual([]);
  });

  it("defaults and resets the event type", async () => {
    expect(await decodeString("event:\ndata: a\n\nevent: t\ndata: b\n\ndata: c\n\n")).toEqual([
      { event: "message", data: "a" },
      { event: "t", data: "b" },
      { event: "message", data: "c" },
    ]);
  });

  it("keeps the last event id across events, resets it on an empty id, ignores ids with NUL", async () => {
    expect(
      await decodeString("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\0\ndata: d\n\nid: 3\ndata: e\n\n"),
    ).toEqual([
      { event: "message", data: "a", id: "1" },
      { event: "message", data: "b", id: "1" },
      { event: "message", data: "c" },
      { event: "message", data: "d" },
      { event: "message", data: "e", id: "3" },
    ]);
  });

  it("reports valid retry fields and ignores others and unknown fields", async () => {
    const retries: number[] = [];
    const events = await collect(
      decodeSse(fromArray(["retry: 1500\nretry: 1x\nretry:\nretry: -1\nretry:250\nfoo: bar\ndata: a\n\n"]), {
        onRetry: (ms) => retries.push(ms),
      }),
    );
    expect(retries).toEqual([1500, 250]);
    expect(events).toEqual([{ event: "message", data: "a" }]);
  });

  it("discards a trailing partial event", async () => {
    expect(await decodeString("data: a\n\ndata: b\n")).toEqual([{ event: "message", data: "a" }]);
    expect(await decodeString("data: a\n\ndata: b")).toEqual([{ event: "message", data: "a" }]);
    expect(await decodeString("data: a\n\ndata: b\r")).toEqual([{ event: "message", data: "a" }]);
  });

  it("decodes a JSON-RPC streaming line", async () => {
    const events = await decodeString('data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    expect(events).toEqual([{ event: "message", data: '{"jsonrpc":"2.0","id":1,"result":{}}' }]);
    expect(JSON.parse(events[0]!.data)).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });

  it("replaces invalid UTF-8 and a truncated final character with U+FFFD", async () => {
    const bytes = Uint8Array.of(...utf8.encode("data: "), 0xff, 0x41, ...utf8.encode("\n\n"));
    expect(await collect(decodeSse(fromArray([bytes])))).toEqual([{ event: "message", data: "\uFFFDA" }]);
    // Bytes then a string: the unfinished character is flushed as U+FFFD first.
    const euro = utf8.encode("€");
    const mixed = [Uint8Array.of(...utf8.encode("data: "), euro[0]!, euro[1]!), "x\n\n"];
    expect(await collect(decodeSse(fromArray<Uint8Array | string>(mixed)))).toEqual([
      { event: "message", data: "\uFFFDx" },
    ]);
  });

  it("is linear: a long line and many events delivered a byte at a time", async () => {
    const long = "x".repeat(200_000);
    const bytes = utf8.encode(`data: ${long}\n\n` + "data: y\n\n".repeat(20_000));
    async function* oneByte() {
      for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
    }
    const start = performance.now();
    const events = await collect(decodeSse(oneByte()));
    expect(events.length).toBe(20_001);
    expect(events[0]!.data).toBe(long);
    expect(performance.now() - start).toBeLessThan(10_000);
  });
});

describe("encodeSseEvent and sseComment", () => {
  it("encodes one data line per line of data, then a blank line", () => {
    expect(encodeSseEvent("a")).toBe("data: a\n\n");
    expect(encodeSseEvent("")).toBe("data: \n\n");
    expect(encodeSseEvent("a\nb\r\nc\rd")).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
    expect(encodeSseEvent(" lead", { event: "task", id: "42" })).toBe("event: task\nid: 42\ndata:  lead\n\n");
  });

  it("rejects line breaks in event names and ids, and NUL in ids", () => {
    expect(() => encodeSseEvent("a", { event: "x\ny" })).toThrow(TypeError);
    expect(() => encodeSseEvent("a", { id: "1\r" })).toThrow(TypeError);
    expect(() => encodeSseEvent("a", { id: "1\0" })).toThrow(TypeError);
  });

  it("writes comments that decode to nothing", async () => {
    expect(sseComment("keep-alive")).toBe(": keep-alive\n");
    expect(sseComment("")).toBe(":\n");
    expect(sseComment("a\nb")).toBe(": a\n: b\n");
    const text = sseComment("x\ny") + encodeSseEvent("1", { event: "e" }) + sseComment("ping") + encodeSseEvent("2");
    expect(await decodeString(text)).toEqual([
      { event: "e", data: "1" },
      { event: "message", data: "2" },
    ]);
  });
});

describe("abort", () => {
  it("stops between events", async () => {
    const ctl = new AbortController();
    const got: string[] = [];
    for await (const ev of decodeSse(fromArray(["data: 1\n\ndata: 2\n\ndata: 3\n\n"]), { signal: ctl.signal })) {
      got.push(ev.data);
      if (ev.data === "1") ctl.abort();
    }
    expect(got).toEqual(["1"]);
  });

  it("yields nothing when already aborted", async () => {
    expect(await collect(decodeSse(fromArray(["data: 1\n\n"]), { signal: AbortSignal.abort() }))).toEqual([]);
  });

  it("stops while waiting for a chunk, and closes the source", async () => {
    const ctl = new AbortController();
    let closed = false;
    const source: AsyncIterable<string> = {
      [Symbol.asyncIterator]() {
        let sent = false;
        return {
          next: () => {
            if (!sent) {
              sent = true;
              return Promise.resolve({ done: false, value: "data: 1\n\n" });
            }
            return new Promise<IteratorResult<string>>(() => {}); // never settles
          },
          return: () => {
            closed = true;
            return Promise.resolve({ done: true, value: undefined });
          },
        };
      },
    };
    const got: string[] = [];
    const done = (async () => {
      for await (const ev of decodeSse(source, { signal: ctl.signal })) got.push(ev.data);
    })();
    await new Promise((r) => setTimeout(r, 20));
    ctl.abort();
    await done;
    expect(got).toEqual(["1"]);
    expect(closed).toBe(true);
  });

  it("closes the source when the consumer stops early", async () => {
    let finalized = false;
    async function* source() {
      try {
        yield "data: 1\n\n";
        yield "data: 2\n\n";
      } finally {
        finalized = true;
      }
    }
    for await (const ev of decodeSse(source())) {
      expect(ev.data).toBe("1");
      break;
    }
    expect(finalized).toBe(true);
  });

  it("propagates a source error", async () => {
    async function* source(): AsyncGenerator<string> {
      yield "data: 1\n\n";
      throw new Error("boom");
    }
    const got: string[] = [];
    await expect(
      (async () => {
        for await (const ev of decodeSse(source())) got.push(ev.data);
      })(),
    ).rejects.toThrow("boom");
    expect(got).toEqual(["1"]);
  });
});

describe("sseStreamFromResponse", () => {
  it("yields nothing for a null body", async () => {
    const chunks: Uint8Array[] = [];
    for await (const c of sseStreamFromResponse(null)) chunks.push(c);
    expect(chunks).toEqual([]);
  });

  it("reads a Response body", async () => {
    const res = new Response(encodeSseEvent("a\nb", { event: "status-update" }) + encodeSseEvent("c"));
    expect(await collect(decodeSse(sseStreamFromResponse(res.body)))).toEqual([
      { event: "status-update", data: "a\nb" },
      { event: "message", data: "c" },
    ]);
  });

  it("cancels the stream when decoding stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(utf8.encode("data: tick\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    let n = 0;
    for await (const _ev of decodeSse(sseStreamFromResponse(body))) if (++n === 3) break;
    expect(cancelled).toBe(true);
  });

  describe("over HTTP", () => {
    let server: Server;
    let base: string;
    let clientGone: Promise<void>;
    beforeAll(async () => {
      let gone!: () => void;
      clientGone = new Promise((r) => (gone = r));
      server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.on("close", gone);
        // Split mid-character on purpose.
        const bytes = utf8.encode(
          sseComment("hello") + encodeSseEvent('{"jsonrpc":"2.0","id":1,"result":{"t":"😀"}}', { id: "1" }),
        );
        const split = bytes.indexOf(0xf0) + 2;
        res.write(bytes.subarray(0, split));
        setTimeout(() => res.write(bytes.subarray(split)), 10);
        // The response never ends; the client aborts.
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("stops and disconnects when the signal aborts while the server is silent", async () => {
      const ctl = new AbortController();
      const res = await fetch(`${base}/hang`, { signal: ctl.signal });
      const got: SseEvent[] = [];
      for await (const ev of decodeSse(sseStreamFromResponse(res.body), { signal: ctl.signal })) {
        got.push(ev);
        setTimeout(() => ctl.abort(), 20);
      }
      expect(got).toEqual([{ event: "message", data: '{"jsonrpc":"2.0","id":1,"result":{"t":"😀"}}', id: "1" }]);
      await clientGone;
    });
  });
});
