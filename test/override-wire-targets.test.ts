/**
 * Override targets api.restRequestContentTypes, api.streamStart and
 * api.taskTurns (src/overrides/targets.ts): the shipped entries become the
 * service definition's tables (restRequestContentTypes, streamStart per HTTP
 * binding, taskTurns.busyError, which the task runtime reads), and an entry
 * whose value the target does not take stops generation naming the entry.
 * The plugin runs in-process over both pinned protos.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { beforeAll, describe, expect, it } from "vitest";
import { A2AServiceV1_0 } from "../generated-samples/v1.0.1/a2a_a2a.js";
import { A2AServiceV0_3 } from "../generated-samples/v0.3.0/a2a_a2a.js";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";

let image: FileDescriptorProto[];
let dir: string;
let n = 0;

/** A user file whose one entry (line 4) replaces the shipped entry `replaces` with this value (YAML flow). */
function replacing(target: string, replaces: string, value: string): string {
  const file = join(dir, `wire-${++n}.yaml`);
  const lines = [
    "format: 2",
    "package: lf.a2a.v1",
    "entries:",
    "  - id: acme-entry",
    `    target: ${target}`,
    `    value: ${value}`,
    '    source: { document: "acme", section: "1" }',
    '    decision: "test"',
    `    replaces: ${replaces}`,
  ];
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

const generate = (opt: string[]) => runPlugin(request(image, ["v1.0.1/a2a.proto"], ["target=ts", ...opt]));

beforeAll(() => {
  image = buildImage(["v1.0.1"]);
  dir = mkdtempSync(join(tmpdir(), "a2a-wire-targets-"));
});

describe("the shipped entries, as the runtime reads them from the generated definitions", () => {
  it("restRequestContentTypes: JSON types only, refused with ContentTypeNotSupportedError", () => {
    expect(A2AServiceV1_0.restRequestContentTypes).toEqual({
      accept: ["application/a2a+json", "application/json"],
      error: "ContentTypeNotSupportedError",
    });
    expect(A2AServiceV0_3.restRequestContentTypes).toEqual({
      accept: ["application/json", "application/a2a+json"],
      error: "ContentTypeNotSupportedError",
    });
  });

  it("streamStart: first-event at 1.0; at 0.3 in-stream on JSON-RPC, first-event on HTTP+JSON", () => {
    expect(A2AServiceV1_0.streamStart).toEqual({ jsonrpc: "first-event", rest: "first-event" });
    expect(A2AServiceV0_3.streamStart).toEqual({ jsonrpc: "in-stream", rest: "first-event" });
  });

  it("taskTurns: a message to a busy task is UnsupportedOperationError (0.3 through the bridge)", () => {
    expect(A2AServiceV1_0.taskTurns?.busyError).toBe("UnsupportedOperationError");
    expect(A2AServiceV1_0.errors.find((e) => e.name === A2AServiceV1_0.taskTurns?.busyError)).toMatchObject({
      jsonrpcCode: -32004,
      grpcStatus: "FAILED_PRECONDITION",
      httpStatus: 400,
    });
    expect(A2AServiceV0_3.taskTurns).toBeNull();
  });

  it("lists every new entry in the overrides page", () => {
    const r = generate([]);
    const page = r.files.get("v1.0.1/a2a_overrides.md")!;
    for (const id of ["rest-request-content-type", "stream-start", "task-turns"]) expect(page).toContain(id);
  });
});

describe("values the targets refuse", () => {
  it.each<[string, string, string, string]>([
    [
      "api.taskTurns",
      "task-turns",
      "{ busyError: NoSuchError }",
      "NoSuchError is not in api.errors (an entry before this one)",
    ],
    [
      "api.taskTurns",
      "task-turns",
      "{ busyError: InvalidParamsError }",
      "InvalidParamsError is not in api.errors (an entry before this one)",
    ],
    [
      "api.restRequestContentTypes",
      "rest-request-content-type",
      "{ accept: [application/json], error: NoSuchError }",
      "NoSuchError is in neither api.errors nor api.standardErrors (entries before this one)",
    ],
  ])("%s %s", (target, replaces, value, problem) => {
    const file = replacing(target, replaces, value);
    const r = generate([`overrides=${file}`]);
    expect(r.error?.message).toBe(`${file}:4: entry "acme-entry": ${problem}`);
    expect(r.files.size).toBe(0);
  });

  it.each<[string, string, string]>([
    ["api.streamStart", "stream-start", "in-stream"],
    ["api.streamStart", "stream-start", "{ jsonrpc: in-stream, rest: in-stream }"],
    ["api.restRequestContentTypes", "rest-request-content-type", "{ accept: [Application/JSON], error: X }"],
    ["api.restRequestContentTypes", "rest-request-content-type", "{ accept: [], error: X }"],
    ["api.taskTurns", "task-turns", "{ busyError: UnsupportedOperationError, queue: true }"],
  ])("%s: the schema refuses %s", (target, replaces, value) => {
    const file = replacing(target, replaces, value);
    const r = generate([`overrides=${file}`]);
    expect(r.error?.message).toContain(`${file}:4: entry "acme-entry"`);
    expect(r.files.size).toBe(0);
  });

  it("takes a user entry that changes the busy-task error", () => {
    const file = replacing("api.taskTurns", "task-turns", "{ busyError: TaskNotCancelableError }");
    const r = generate([`overrides=${file}`]);
    expect(r.error).toBeUndefined();
    expect(r.files.get("v1.0.1/a2a_a2a.ts")).toContain('  taskTurns: { busyError: "TaskNotCancelableError" },');
  });
});
