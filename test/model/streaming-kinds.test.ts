/**
 * Method kinds the A2A bindings cannot carry (build-model.ts): a service that gets A2A output with a client
 * streaming or a bidirectional streaming method is refused, naming the file and each such method, and nothing is
 * written. Before, both were generated as unary in the handler and client types and the docs called the
 * bidirectional one "server stream". The plugin runs in-process on a request built by `buf build`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildImage, request, runPlugin } from "../helpers/in-process.js";

const FILE = "acme/uploads/v1/uploads.proto";
let dir: string;
let image: FileDescriptorProto[];
let overrides: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-kinds-"));
  const protos = join(dir, "protos");
  mkdirSync(join(protos, "acme/uploads/v1"), { recursive: true });
  writeFileSync(
    join(protos, FILE),
    [
      'syntax = "proto3";',
      "package acme.uploads.v1;",
      "message Chunk { bytes data = 1; }",
      "service Uploads {",
      "  rpc Get(Chunk) returns (Chunk);",
      "  rpc Watch(Chunk) returns (stream Chunk);",
      "  rpc Upload(stream Chunk) returns (Chunk);",
      "  rpc Chat(stream Chunk) returns (stream Chunk);",
      "}",
      "",
    ].join("\n"),
  );
  image = buildImage([], [protos]);
  overrides = join(dir, "uploads.yaml");
  const source = 'source: { document: "test", section: "1" }';
  writeFileSync(
    overrides,
    [
      "format: 2",
      "package: acme.uploads.v1",
      "entries:",
      "  - id: version",
      "    target: api.protocolVersion",
      '    value: { version: "1.0", release: "1.0.0" }',
      `    ${source}`,
      '    decision: "t"',
      "",
    ].join("\n"),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("refuses client streaming and bidirectional streaming methods, naming each, and writes nothing", () => {
  const r = runPlugin(request(image, [FILE], ["target=ts", `overrides=${overrides}`]));
  const message = r.error?.message ?? "";
  expect(message).toContain(
    `${FILE}: rpc acme.uploads.v1.Uploads.Upload: a client streaming method cannot be generated`,
  );
  expect(message).toContain(
    `${FILE}: rpc acme.uploads.v1.Uploads.Chat: a bidirectional streaming method cannot be generated`,
  );
  expect(message).not.toContain("Uploads.Get");
  expect(message).not.toContain("Uploads.Watch");
  expect(r.files.size).toBe(0);
});

it("leaves such a service alone when it gets no A2A output (no override file covers it)", () => {
  const r = runPlugin(request(image, [FILE], ["target=ts"]));
  expect(r.error).toBeUndefined();
  expect(r.stderr).toContain("protoc-gen-a2a: skipping acme.uploads.v1.Uploads");
});
