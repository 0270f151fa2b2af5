/**
 * Override target api.jsonrpcDialect (src/overrides/targets.ts): a resource name's `optional` ids must be ids
 * of its pattern after the first, or generation stops naming the entry and each wrong id. The plugin runs
 * in-process over v0.3.0/a2a.proto with a user file replacing the shipped dialect entry.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";

interface ResourceName {
  message: string;
  field: string;
  pattern: string;
  optional?: string[];
}
interface Shipped {
  entries: { id: string; value: { resourceNames: ResourceName[] } }[];
}

let image: FileDescriptorProto[];
let shipped: Shipped["entries"][number]["value"];
let dir: string;

/** A user file (its entry at line 4) replacing the shipped dialect with the get's optional ids set to these. */
function withOptional(optional: string[]): string {
  const value = structuredClone(shipped);
  const get = value.resourceNames.find((r) => r.message === "a2a.v1.GetTaskPushNotificationConfigRequest")!;
  get.optional = optional;
  const file = join(dir, `dialect-${optional.join("-")}.yaml`);
  const lines = [
    "format: 2",
    "package: a2a.v1",
    "entries:",
    "  - id: acme-dialect",
    "    target: api.jsonrpcDialect",
    `    value: ${JSON.stringify(value)}`,
    '    source: { document: "acme", section: "1" }',
    '    decision: "test"',
    "    replaces: jsonrpc-dialect",
  ];
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const generate = (file: string) =>
  runPlugin(request(image, ["v0.3.0/a2a.proto"], ["target=ts", "emit=stubs+openrpc", `overrides=${file}`]));

beforeAll(() => {
  image = buildImage(["v0.3.0"]);
  const doc = parse(readFileSync("proto/overrides/a2a-v0.3.0.yaml", "utf8")) as Shipped;
  shipped = doc.entries.find((e) => e.id === "jsonrpc-dialect")!.value;
  dir = mkdtempSync(join(tmpdir(), "a2a-dialect-"));
});

describe("api.jsonrpcDialect resourceNames optional", () => {
  it("takes the shipped optional id: OpenRPC requires only the task id of a push config get", () => {
    const r = generate(withOptional(["pushNotificationConfigId"]));
    expect(r.error).toBeUndefined();
    const doc = JSON.parse(r.files.get("v0.3.0/a2a_openrpc.json")!) as {
      methods: { name: string; params: { name: string; required: boolean }[] }[];
    };
    const get = doc.methods.find((m) => m.name === "tasks/pushNotificationConfig/get")!;
    expect(get.params.map((p) => [p.name, p.required])).toEqual([
      ["id", true],
      ["pushNotificationConfigId", false],
      ["metadata", false],
    ]);
  });

  it("refuses the first id and an id the pattern lacks, naming the entry and each", () => {
    const file = withOptional(["id", "configId"]);
    const r = generate(file);
    const pattern = "tasks/{id}/pushNotificationConfigs/{pushNotificationConfigId}";
    expect(r.error?.message).toBe(
      `${file}:4: entry "acme-dialect": resourceNames: ${pattern}: its first id id cannot be optional; ` +
        `${pattern}: optional id configId is not an id of the pattern`,
    );
    expect(r.files.size).toBe(0);
  });
});
