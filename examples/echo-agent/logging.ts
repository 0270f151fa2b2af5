/**
 * The example agent's logs: one line per HTTP request or gRPC call (method, path, A2A-Version, status,
 * milliseconds), and each A2A error a call ends with (logA2aErrors, an interceptor). main.ts writes them
 * to stdout and stderr; startEchoAgent logs nothing unless it is given an AgentLog.
 *
 * Every value taken from a request (method, path, A2A-Version, and an error's message, which quotes task ids
 * and other parameters) goes through logValue, so a request gives exactly one line and cannot forge another
 * or drive a terminal: backslash -> \\; LF, CR, HTAB -> \n, \r, \t; other C0 controls, DEL and C1 controls
 * (U+0085 is a line break to some readers, U+009B an ANSI escape) -> \xNN; U+2028, U+2029, the bidirectional
 * format controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and lone surrogates -> \uNNNN.
 * The stack of an error that is not an A2AError keeps its frame lines (they come from code); its first line,
 * the name and message, is escaped.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { A2AError, type Interceptor as A2aInterceptor } from "@protoc-gen-a2a/runtime";

export interface AgentLog {
  /** One line per HTTP request or gRPC call, e.g. `POST /a2a/jsonrpc v1.0 200 3.1ms`. */
  readonly request: (line: string) => void;
  /** Each error a handler method throws, e.g. `handler error in GetTask: TaskNotFoundError: Task x not found`. */
  readonly error: (line: string) => void;
}

type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

const VERSION_KEY = "a2a-version";
const since = (start: number) => `${(performance.now() - start).toFixed(1)}ms`;
const PLAIN = /^[ -[\]-~]*$/; // printable ASCII but the backslash: nothing to escape

/** Whether a code point is written as \uNNNN: line and paragraph separators, bidi controls, lone surrogates. */
const isUnicodeFormat = (code: number) =>
  code === 0x061c ||
  code === 0x200e ||
  code === 0x200f ||
  (code >= 0x2028 && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069) ||
  (code >= 0xd800 && code <= 0xdfff);

const SHORT: Readonly<Record<string, string>> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A value from a request as it may stand in a log line (the escapes are in the header). */
export function logValue(text: string): string {
  if (PLAIN.test(text)) return text;
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const short = SHORT[char];
    if (short !== undefined) out += short;
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (isUnicodeFormat(code)) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return out;
}

/** "v1.0" for A2A-Version 1.0, "-" for none; one word, so a line splits into its fields at spaces. */
function versionOf(value: string | null | undefined): string {
  const v = value?.trim().replace(/\s+/g, "_");
  return v ? `v${logValue(v)}` : "-";
}

/**
 * A node:http listener that logs `METHOD path version status time` (version: the A2A-Version header, "-"
 * without one; the path without its query) when the response has been sent ('finish'), or, with
 * " (closed early)" after it, when the connection closes first (a client leaving a stream).
 */
export function logHttpRequests(listener: NodeListener, log: (line: string) => void): NodeListener {
  return (req, res) => {
    const start = performance.now();
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    const path = q < 0 ? raw : raw.slice(0, q);
    const header = req.headers[VERSION_KEY];
    const version = versionOf(typeof header === "string" ? header : null);
    const call = `${logValue(req.method ?? "GET")} ${logValue(path)} ${version}`;
    const line = (note = "") => log(`${call} ${res.statusCode} ${since(start)}${note}`);
    res.once("finish", () => line());
    res.once("close", () => {
      if (!res.writableFinished) line(" (closed early)");
    });
    listener(req, res);
  };
}

/**
 * A fetch handler that logs as logHttpRequests does: when the answer's body has been read to its end, or, with
 * " (closed early)", when the client cancels it first (a client leaving a stream).
 */
export function logFetchRequests(
  handler: (request: Request) => Promise<Response>,
  log: (line: string) => void,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const start = performance.now();
    const url = new URL(request.url);
    const version = versionOf(request.headers.get(VERSION_KEY));
    const call = `${logValue(request.method)} ${logValue(url.pathname)} ${version}`;
    const response = await handler(request);
    const line = (note = "") => log(`${call} ${response.status} ${since(start)}${note}`);
    if (response.body === null) {
      line();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        controller.close();
        line();
      },
      async cancel(reason) {
        line(" (closed early)");
        await reader.cancel(reason);
      },
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}

const codeOf = (e: unknown) => Code[ConnectError.from(e).code];

/** Ends a logged stream: OK, the error's code, or Canceled when the client went away. */
async function* loggedStream<T>(messages: AsyncIterable<T>, signal: AbortSignal, line: (status: string) => void) {
  let status = "Canceled"; // the server stopped reading it
  try {
    yield* messages;
    status = signal.aborted ? "Canceled" : "OK";
  } catch (e) {
    status = codeOf(e);
    throw e;
  } finally {
    line(status);
  }
}

/** A connect interceptor that logs `gRPC /package.Service/Method version code time` per call. */
export function logGrpcCalls(log: (line: string) => void): Interceptor {
  return (next) => async (req) => {
    const start = performance.now();
    const call = `gRPC /${req.service.typeName}/${req.method.name} ${versionOf(req.header.get(VERSION_KEY))}`;
    const line = (status: string) => log(`${call} ${status} ${since(start)}`);
    let res: Awaited<ReturnType<typeof next>>;
    try {
      res = await next(req);
    } catch (e) {
      line(codeOf(e));
      throw e;
    }
    if (!res.stream) {
      line("OK");
      return res;
    }
    return { ...res, message: loggedStream(res.message, req.signal, line) };
  };
}

/** An error's stack with its first line (name and message, which may quote a request) escaped. */
function escapedStack(e: Error): string {
  const head = e.message === "" ? e.name : `${e.name}: ${e.message}`;
  if (e.stack === undefined) return logValue(head);
  return e.stack.startsWith(head) ? logValue(head) + e.stack.slice(head.length) : logValue(e.stack);
}

/** The log line of a handler error: type and message of an A2AError, the stack of anything else. */
export function describeHandlerError(operation: string, e: unknown): string {
  const at = `handler error in ${logValue(operation)}`;
  if (e instanceof A2AError) return `${at}: ${logValue(e.type)}: ${logValue(e.message)}`;
  if (e instanceof Error) return `${at}: ${escapedStack(e)}`;
  return `${at}: ${logValue(String(e))}`;
}

async function* reportingStream<T>(events: AsyncIterable<T>, report: (e: unknown) => void): AsyncIterable<T> {
  try {
    yield* events;
  } catch (e) {
    report(e);
    throw e;
  }
}

/**
 * An A2A interceptor that logs each A2AError a call ends with (an authentication refusal, a handler's answer,
 * one thrown while its stream is read) once and rethrows it unchanged, so what goes on the wire does not change.
 * The failures that are not A2A errors reach the servers' onError (server.ts), with the operation.
 */
export function logA2aErrors(log: (line: string) => void): A2aInterceptor {
  return (next) => async (call) => {
    const report = (e: unknown) => {
      if (e instanceof A2AError) log(describeHandlerError(call.operation.name, e));
    };
    try {
      const result = await next(call);
      return result.kind === "stream" ? { kind: "stream", messages: reportingStream(result.messages, report) } : result;
    } catch (e) {
      report(e);
      throw e;
    }
  };
}
