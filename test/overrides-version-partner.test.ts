/**
 * A request with one A2A version of a cross-version pair (buf's default strategy runs the plugin once per
 * directory, so v0.3.0/ and v1.0.1/ come one at a time) writes one note on stderr saying the cross-version
 * outputs need both versions in one request (`strategy: all`), and still generates that version (issue 24).
 * With both versions, or outputs that have no cross-version part, or services= leaving the A2A service
 * out, or without the shipped override files that pair the versions, there is no note. Each run is in-process on the pinned protos.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";
import { repoRoot } from "./helpers/run.js";

let image: FileDescriptorProto[];
let acme: string;
let billingFile: string;
/** An override file giving `pkg` a protocol version; returns its path. */
function versionFile(dir: string, pkg: string): string {
  const file = join(dir, `${pkg}.yaml`);
  writeFileSync(
    file,
    `format: 2\npackage: ${pkg}\nentries:\n  - id: acme\n    target: api.protocolVersion\n` +
      '    value: { version: "1.0", release: "1.0.1" }\n    source: { document: "acme", section: "1" }\n' +
      '    decision: "acme"\n',
  );
  return file;
}
beforeAll(() => {
  image = buildImage(["v0.3.0", "v1.0.1"]);
  const dir = mkdtempSync(join(tmpdir(), "a2a-partner-"));
  acme = versionFile(dir, "lf.a2a.v1");
  billingFile = versionFile(dir, "acme.billing.v1");
});

const note = (here: string, missing: string, outputs: string) =>
  `protoc-gen-a2a: ${here} is in this request without ${missing}, so ${outputs} (the cross-version outputs) ` +
  "are not written: they need both A2A versions in one request; " +
  "with buf, set `strategy: all` on this plugin in buf.gen.yaml\n";
const all = "a2a_compat.ts, a2a_compat.md, a2a_versions.md";

describe("one A2A version in the request", () => {
  it("v1.0.1 alone: one note naming a2a.v1 and strategy: all, and the version is generated", () => {
    const r = runPlugin(request(image, ["v1.0.1/a2a.proto"], []));
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(note("lf.a2a.v1", "a2a.v1", all));
    expect(r.files.has("v1.0.1/a2a_a2a.ts")).toBe(true);
    expect(r.files.has("a2a_compat.ts")).toBe(false);
  });

  it("v0.3.0 alone: the same note, from the other side", () => {
    const r = runPlugin(request(image, ["v0.3.0/a2a.proto"], []));
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(note("a2a.v1", "lf.a2a.v1", all));
    expect(r.files.has("v0.3.0/a2a_a2a.ts")).toBe(true);
  });

  it("names only the cross-version outputs that emit= asks for", () => {
    expect(runPlugin(request(image, ["v1.0.1/a2a.proto"], ["emit=routes+stubs"])).stderr).toBe(
      note("lf.a2a.v1", "a2a.v1", "a2a_compat.ts"),
    );
    expect(runPlugin(request(image, ["v1.0.1/a2a.proto"], ["emit=docs"])).stderr).toBe(
      note("lf.a2a.v1", "a2a.v1", "a2a_compat.md, a2a_versions.md"),
    );
  });

  it("says nothing when no output has a cross-version part", () => {
    const r = runPlugin(request(image, ["v1.0.1/a2a.proto"], ["emit=routes+openapi+openrpc"]));
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe("");
  });

  it("says nothing without the shipped override files, which pair the versions", () => {
    const r = runPlugin(request(image, ["v1.0.1/a2a.proto"], ["default_overrides=false", `overrides=${acme}`]));
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe("");
  });
});

describe("services=", () => {
  it("choosing one of the two versions in the request: the user's choice, no note", () => {
    const files = ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"];
    const r = runPlugin(request(image, files, ["services=lf.a2a.v1.A2AService"]));
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe("");
  });

  it("leaving the lone version's service out for another one: no A2A output, no note", () => {
    const withBilling = buildImage(["v1.0.1"], [join(repoRoot, "test/fixtures/services")]);
    const billing = "acme/billing/v1/billing.proto";
    const opt = ["services=acme.billing.v1.Billing", `overrides=${billingFile}`];
    const r = runPlugin(request(withBilling, ["v1.0.1/a2a.proto", billing], opt));
    expect(r.error).toBeUndefined();
    expect(r.files.has("acme/billing/v1/billing_routes.json")).toBe(true);
    expect(r.stderr).toBe("");
  });
});

describe("both versions in the request", () => {
  it("no note, and the cross-version module is written", () => {
    const r = runPlugin(request(image, ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"], []));
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe("");
    expect(r.files.has("a2a_compat.ts")).toBe(true);
  });
});
