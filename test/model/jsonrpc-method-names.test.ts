/**
 * JSON-RPC method names are one per operation of a service once every override is in (resolve-api.ts): a user
 * entry that gives SendMessage GetTask's method name is refused, naming the service, both operations and the
 * name, and nothing is written. Before, it generated: the server's method table kept one of the two, and the
 * OpenRPC document listed the name twice. An override file outside the working directory is named by its
 * relative path in the output, not its absolute one. The plugin runs in-process on a request built by `buf build`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildImage, request, runPlugin } from "../helpers/in-process.js";

const A2A = "v1.0.1/a2a.proto";
let dir: string;
let image: FileDescriptorProto[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-rpc-names-"));
  image = buildImage(["v1.0.1"]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An override file for lf.a2a.v1 that names SendMessage's JSON-RPC method `method`. */
function renaming(method: string): string {
  const file = join(dir, `${method}.yaml`);
  const entry = [
    "  - id: rename",
    "    target: operations.SendMessage.jsonrpcMethod",
    `    value: ${method}`,
    '    source: { document: "test", section: "1" }',
    '    decision: "t"',
  ];
  writeFileSync(file, ["format: 2", "package: lf.a2a.v1", "entries:", ...entry, ""].join("\n"));
  return file;
}

it("refuses two operations with one JSON-RPC method, naming both, and writes nothing", () => {
  const r = runPlugin(request(image, [A2A], ["target=ts", `overrides=${renaming("GetTask")}`]));
  expect(r.error?.message).toContain(
    `${A2A}: service lf.a2a.v1.A2AService: SendMessage and GetTask share the JSON-RPC method "GetTask"`,
  );
  expect(r.files.size).toBe(0);
});

it("takes a name no other operation has", () => {
  const r = runPlugin(request(image, [A2A], ["target=ts", `overrides=${renaming("SendAMessage")}`]));
  expect(r.error).toBeUndefined();
  expect(r.files.get("v1.0.1/a2a_a2a.ts")).toContain('SendMessage: "SendAMessage"');
});

it("names an override file outside the working directory by its relative path, in every output", () => {
  const file = renaming("SendAMessage");
  const given = relative(process.cwd(), file);
  expect(given.startsWith("../")).toBe(true);
  const r = runPlugin(request(image, [A2A], ["target=ts", `overrides=${given}`]));
  expect(r.error).toBeUndefined();
  expect(r.files.get("v1.0.1/a2a_overrides.md")).toContain(given);
  // The relative path holds the absolute one's tail: only the path as given may name the folder.
  for (const [name, text] of r.files) expect(text.split(given).join(""), name).not.toContain(dir);
});
