/**
 * The override target api.dualVersion (issue 9, item 14): which A2A-Version
 * values a dual-version server gives the older version is an override entry,
 * emitted into the definition tables; the target refuses versions that are
 * not Major.Minor, this version itself, and a package without a version
 * header. In-process plugin runs on the pinned v1.0.1 proto.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";

let image: FileDescriptorProto[];
let dir: string;
let files = 0;

beforeAll(() => {
  image = buildImage(["v1.0.1"]);
  dir = mkdtempSync(join(tmpdir(), "a2a-dual-"));
});

/** Runs the plugin with the shipped overrides and one user entry replacing the shipped dual-version entry. */
function withDualVersion(value: string) {
  const path = join(dir, `dual-${++files}.yaml`);
  writeFileSync(
    path,
    `format: 2
package: lf.a2a.v1
entries:
  - id: dual-version-user
    replaces: dual-version
    target: api.dualVersion
    value: ${value}
    source: { document: "test", section: "1" }
    decision: "test"
`,
  );
  return { path, result: runPlugin(request(image, ["v1.0.1/a2a.proto"], [`overrides=${path}`])) };
}

describe("api.dualVersion", () => {
  it("is emitted into the definition tables", () => {
    const { result } = withDualVersion('{ olderVersions: ["0.3", "0.2"] }');
    expect(result.error).toBeUndefined();
    expect(result.files.get("v1.0.1/a2a_a2a.ts")).toContain('dualVersion: { olderVersions: ["0.3", "0.2"] },');
  });

  it("refuses this version as an older one", () => {
    const { path, result } = withDualVersion('{ olderVersions: ["0.3", "1.0"] }');
    expect(result.error?.message).toBe(`${path}:4: entry "dual-version-user": 1.0 is this version, not an older one`);
  });

  it("refuses a version that is not Major.Minor", () => {
    const { path, result } = withDualVersion('{ olderVersions: ["0.3.0"] }');
    expect(result.error?.message).toBe(
      `${path}:4: entry "dual-version-user": value for api.dualVersion is invalid: ` +
        '/olderVersions/0: must match pattern "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$"',
    );
  });

  it("refuses a package without a version header", () => {
    const path = join(dir, "no-header.yaml");
    writeFileSync(
      path,
      `format: 2
package: lf.a2a.v1
entries:
  - id: version
    target: api.protocolVersion
    value: { version: "1.0", release: "1.0.1" }
    source: { document: "test", section: "1" }
    decision: "test"
  - id: dual
    target: api.dualVersion
    value: { olderVersions: ["0.3"] }
    source: { document: "test", section: "1" }
    decision: "test"
`,
    );
    const result = runPlugin(request(image, ["v1.0.1/a2a.proto"], ["default_overrides=false", `overrides=${path}`]));
    expect(result.error?.message).toBe(
      `${path}:9: entry "dual": needs api.headers with a version header (an entry before this one)`,
    );
  });
});
