/**
 * Override target api.capabilities (src/overrides/capabilities.ts): the shipped
 * entries become ProtocolTables.capabilities, and an entry whose card paths,
 * operations or errors do not exist stops generation naming the entry and
 * every problem. The plugin runs in-process over v1.0.1/a2a.proto.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { beforeAll, describe, expect, it } from "vitest";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";

let image: FileDescriptorProto[];
let dir: string;
let n = 0;

/** A user file whose one entry (line 4) replaces the shipped capabilities entry with this value (YAML flow). */
function replacing(value: string): string {
  const file = join(dir, `caps-${++n}.yaml`);
  const lines = [
    "format: 2",
    "package: lf.a2a.v1",
    "entries:",
    "  - id: acme-capabilities",
    "    target: api.capabilities",
    `    value: ${value}`,
    '    source: { document: "acme", section: "1" }',
    '    decision: "test"',
    "    replaces: capabilities",
  ];
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

const generate = (opt: string[]) => runPlugin(request(image, ["v1.0.1/a2a.proto"], ["target=ts", ...opt]));

beforeAll(() => {
  image = buildImage(["v1.0.1"]);
  dir = mkdtempSync(join(tmpdir(), "a2a-capabilities-"));
});

describe("api.capabilities", () => {
  it("emits the shipped table into the service definition", () => {
    const r = generate([]);
    expect(r.error).toBeUndefined();
    const a2a = r.files.get("v1.0.1/a2a_a2a.ts")!;
    expect(a2a).toContain('  capabilities: {\n    extensions: "capabilities.extensions",\n');
    expect(a2a).toContain(
      '{ declaredBy: "capabilities.extendedAgentCard", operations: ["GetExtendedAgentCard"],\n' +
        '        undeclared: "UnsupportedOperationError", unimplemented: "ExtendedAgentCardNotConfiguredError" }',
    );
  });

  it("refuses paths, operations and errors that do not exist, naming each", () => {
    const rule =
      "{ declaredBy: capabilities.streamin, operations: [SendStreamingMessage, Stream], " +
      "undeclared: NoSuchError, unimplemented: UnsupportedOperationError }";
    const flag =
      "{ declaredBy: name, operations: [SendStreamingMessage], undeclared: UnsupportedOperationError, " +
      "unimplemented: UnsupportedOperationError }";
    const file = replacing(
      `{ card: lf.a2a.v1.AgentCard, extensions: capabilities.streaming, rules: [${rule}, ${flag}] }`,
    );
    const r = generate([`overrides=${file}`]);
    expect(r.error?.message).toBe(
      `${file}:4: entry "acme-capabilities": ` +
        "capabilities.streaming is not a list of messages with a string uri and a bool required; " +
        "capabilities.streamin: lf.a2a.v1.AgentCapabilities has no field with JSON name streamin; " +
        "Stream is not an RPC of lf.a2a.v1.A2AService; " +
        "NoSuchError is in neither api.errors nor api.standardErrors (entries before this one); " +
        "name is not a bool; SendStreamingMessage is in two rules",
    );
    expect(r.files.size).toBe(0);
  });

  it("refuses a card message the request does not have", () => {
    const file = replacing(
      "{ card: lf.a2a.v1.Card, extensions: capabilities.extensions, rules: [{ declaredBy: x, " +
        "operations: [GetTask], undeclared: UnsupportedOperationError, unimplemented: UnsupportedOperationError }] }",
    );
    expect(generate([`overrides=${file}`]).error?.message).toBe(
      `${file}:4: entry "acme-capabilities": no message lf.a2a.v1.Card in the request`,
    );
  });
});
