/**
 * The W3C Trace Context propagator of the otel entry (trace-context.ts), on
 * the rules of https://www.w3.org/TR/trace-context/: what a traceparent must
 * look like to be taken, that tracestate goes through as it came (and a long
 * one is dropped), and that inject writes what extract reads.
 */
import { ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { formatTraceparent, parseTraceparent, w3cTraceContext } from "@protoc-gen-a2a/runtime/otel";
import { describe, expect, it } from "vitest";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";
const getter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};
const setter = { set: (carrier: Record<string, string>, key: string, value: string) => (carrier[key] = value) };

describe("parseTraceparent", () => {
  it("takes a version-00 value and a future version with more fields", () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
    expect(parseTraceparent(`cc-${TRACE}-${SPAN}-00-extra`)).toMatchObject({ traceId: TRACE, traceFlags: 0 });
  });

  it.each([
    ["version ff", `ff-${TRACE}-${SPAN}-01`],
    ["extra fields at version 00", `00-${TRACE}-${SPAN}-01-extra`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${SPAN}-01`],
    ["an all-zero span id", `00-${TRACE}-${"0".repeat(16)}-01`],
    ["upper-case hex", `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ["a short trace id", `00-${TRACE.slice(1)}-${SPAN}-01`],
    ["no flags", `00-${TRACE}-${SPAN}`],
    ["garbage", "hello"],
  ])("refuses %s", (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it("formats what it parses, keeping only the sampled flag", () => {
    const parsed = parseTraceparent(`00-${TRACE}-${SPAN}-03`)!;
    expect(formatTraceparent(parsed)).toBe(`00-${TRACE}-${SPAN}-01`);
  });
});

describe("w3cTraceContext", () => {
  it("extracts the remote parent with its tracestate, and injects them back", () => {
    const incoming = { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: "vendor=a,other=b" };
    const context = w3cTraceContext.extract(ROOT_CONTEXT, incoming, getter);
    const parent = trace.getSpanContext(context)!;
    expect(parent).toMatchObject({ traceId: TRACE, spanId: SPAN, isRemote: true, traceFlags: TraceFlags.SAMPLED });
    const out: Record<string, string> = {};
    w3cTraceContext.inject(context, out, setter);
    expect(out).toEqual(incoming);
  });

  it("leaves the context as it was for a malformed traceparent, and drops an over-long tracestate", () => {
    expect(w3cTraceContext.extract(ROOT_CONTEXT, { traceparent: "00-bad" }, getter)).toBe(ROOT_CONTEXT);
    const long = { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: `k=${"v".repeat(600)}` };
    const out: Record<string, string> = {};
    w3cTraceContext.inject(w3cTraceContext.extract(ROOT_CONTEXT, long, getter), out, setter);
    expect(out).toEqual({ traceparent: long.traceparent });
  });

  it("names the fields it uses", () => {
    expect(w3cTraceContext.fields()).toEqual(["traceparent", "tracestate"]);
  });
});
