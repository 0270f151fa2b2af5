/**
 * Descriptions from proto comments (src/model/comments.ts): the leading comment of each kind of element, at
 * every depth, tool lines left out, and none where a comment only trails or is absent.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { create } from "@bufbuild/protobuf";
import { commentReader } from "../../dist/model/comments.js";
import { buildImage } from "../helpers/in-process.js";

const PROTO = `syntax = "proto3";
package t.v1;

// The service.
service S {
  // The rpc,
  // on two lines.
  rpc R(M) returns (M);
}

// protolint:disable MAX_LINE_LENGTH
// A message.
message M {
  // A field.
  string f = 1;
  // The oneof.
  oneof o {
    string a = 2;
  }
  // Nested.
  message N { // trails only
    int32 x = 1;
  }
  // Nested enum.
  enum E {
    E_UNSPECIFIED = 0; // trails only
    // A value.
    E_ONE = 1;
  }
}
`;

describe("commentReader", () => {
  const commentOf = commentReader();
  it("gives each element's leading comment, tool lines left out", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-comments-"));
    try {
      mkdirSync(join(dir, "t", "v1"), { recursive: true });
      writeFileSync(join(dir, "t", "v1", "t.proto"), PROTO);
      const files = buildImage([], [dir]);
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
      const m = registry.getMessage("t.v1.M")!;
      const n = registry.getMessage("t.v1.M.N")!;
      const e = registry.getEnum("t.v1.M.E")!;
      const s = registry.getService("t.v1.S")!;
      expect(commentOf(s)).toBe("The service.");
      expect(commentOf(s.methods[0]!)).toBe("The rpc,\non two lines.");
      expect(commentOf(m)).toBe("A message.");
      expect(commentOf(m.fields[0]!)).toBe("A field.");
      expect(commentOf(m.oneofs[0]!)).toBe("The oneof.");
      expect(commentOf(n)).toBe("Nested.");
      expect(commentOf(n.fields[0]!)).toBeUndefined();
      expect(commentOf(e)).toBe("Nested enum.");
      expect(commentOf(e.values[0]!)).toBeUndefined();
      expect(commentOf(e.values[1]!)).toBe("A value.");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
