/**
 * Only A2A services get A2A output: in a request that holds a2a.proto beside a
 * consumer's own protos (test/fixtures/services: one service with
 * google.api.http rules, one without), the services that no override file
 * covers are skipped with one line on stderr each; services= picks services
 * explicitly; a service that gets output needs a protocol version from an
 * override file; a service of the user's declared in A2A's own package is one problem naming the two ways
 * out. The plugin runs in-process on a request built by `buf build`.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import type { GenerationError } from "../dist/generation-error.js";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";
import { repoRoot } from "./helpers/run.js";

const A2A = "v1.0.1/a2a.proto";
const BILLING = "acme/billing/v1/billing.proto";
const INVENTORY = "acme/inventory/v1/inventory.proto";
const skipLine = (service: string, file: string, pkg: string) =>
  `protoc-gen-a2a: skipping ${service} (${file}): no override file covers package ${pkg}; ` +
  "add one with overrides=PATH\n";
/** v1.0.1 without v0.3.0: the note that the cross-version outputs are not written (test/overrides-version-partner). */
const loneVersion =
  "protoc-gen-a2a: lf.a2a.v1 is in this request without a2a.v1, so a2a_compat.ts, a2a_compat.md, " +
  "a2a_versions.md (the cross-version outputs) are not written: they need both A2A versions in one request; " +
  "with buf, set `strategy: all` on this plugin in buf.gen.yaml\n";

let image: FileDescriptorProto[];
let dir: string;
const generate = (opt: string[] = []) => runPlugin(request(image, [A2A, BILLING, INVENTORY], ["target=ts", ...opt]));
/** The files written, less the sources page, which every run with docs writes once. */
const names = (files: Map<string, string>) => [...files.keys()].filter((f) => f !== "a2a_sources.md").sort();

/** Writes an override file with one entry into the temp dir; returns its path. */
function overrideFile(name: string, pkg: string, target: string, value: string): string {
  const file = join(dir, name);
  const source = 'source: { document: "test", section: "1" }';
  const entry = ["  - id: one", `    target: ${target}`, `    value: ${value}`, `    ${source}`, '    decision: "t"'];
  writeFileSync(file, ["format: 2", `package: ${pkg}`, "entries:", ...entry, ""].join("\n"));
  return file;
}

/** An override file for acme.billing.v1 that makes Billing an A2A service at protocol 1.0. */
const billingOverrides = () =>
  overrideFile("billing.yaml", "acme.billing.v1", "api.protocolVersion", '{ version: "1.0", release: "1.0.0" }');

beforeAll(() => {
  image = buildImage(["v1.0.1"], [join(repoRoot, "test/fixtures/services")]);
  dir = mkdtempSync(join(tmpdir(), "a2a-services-"));
});

describe("services that no override file covers", () => {
  it("get no output, and one line each on stderr", () => {
    const r = generate();
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(
      skipLine("acme.billing.v1.Billing", BILLING, "acme.billing.v1") +
        skipLine("acme.inventory.v1.Inventory", INVENTORY, "acme.inventory.v1") +
        loneVersion,
    );
    const files = names(r.files);
    expect(files.filter((f) => f.startsWith("acme/"))).toEqual([]);
    const modules = ["a2a", "errors", "grpc", "jsonrpc", "rest", "routes"].map((s) => `${s}.ts`);
    const texts = [
      "errors.md",
      "openapi.yaml",
      "openrpc.json",
      "operations.md",
      "overrides.md",
      "routes.json",
      "routes.md",
    ];
    expect(files).toEqual([...modules, ...texts].map((s) => `v1.0.1/a2a_${s}`).sort());
    // The A2A output is the one the pinned proto gets alone.
    const alone = runPlugin(request(image, [A2A], ["target=ts"]));
    expect(alone.stderr).toBe(loneVersion);
    expect(r.files).toEqual(alone.files);
  });

  it("get output once an override file covers their package", () => {
    const r = generate([`overrides=${billingOverrides()}`]);
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(skipLine("acme.inventory.v1.Inventory", INVENTORY, "acme.inventory.v1") + loneVersion);
    expect(names(r.files)).toContain("acme/billing/v1/billing_routes.json");
    expect(r.files.get("acme/billing/v1/billing_a2a.ts")).toContain('protocolVersion: "1.0"');
    expect(names(r.files)).toContain("v1.0.1/a2a_routes.json");
  });
});

describe("services=", () => {
  it("picks exactly the services it names, and says nothing of the others", () => {
    const r = generate([`overrides=${billingOverrides()}`, "services=acme.billing.v1.Billing"]);
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe("");
    const files = names(r.files);
    expect(
      files.every((f) => f.startsWith("acme/billing/v1/billing_")),
      files.join(", "),
    ).toBe(true);
    expect(files).toContain("acme/billing/v1/billing_routes.json");
  });

  it("takes several services, repeated or joined with +", () => {
    const both = ["lf.a2a.v1.A2AService", "acme.billing.v1.Billing"];
    const joined = generate([`overrides=${billingOverrides()}`, `services=${both.join("+")}`]);
    const repeated = generate([`overrides=${billingOverrides()}`, ...both.map((s) => `services=${s}`)]);
    expect(joined.error).toBeUndefined();
    // The same files but for the parameter the preamble repeats.
    const body = (files: Map<string, string>) =>
      new Map([...files].map(([k, v]) => [k, v.replace(/^\/\/ @generated by .*$/m, "")]));
    expect(body(joined.files)).toEqual(body(repeated.files));
    expect(names(joined.files)).toContain("v1.0.1/a2a_routes.json");
    expect(names(joined.files)).toContain("acme/billing/v1/billing_routes.json");
  });

  it("drops an overrides= file whose package it leaves out", () => {
    const r = generate([`overrides=${billingOverrides()}`, "services=lf.a2a.v1.A2AService"]);
    expect(r.error).toBeUndefined();
    expect(names(r.files).some((f) => f.startsWith("acme/"))).toBe(false);
  });

  it("refuses a service that no file to generate declares, naming the option", () => {
    const r = generate(["services=acme.billing.v1.Payments"]);
    const message = r.error?.message ?? "";
    expect(message).toMatch(/^option services=acme\.billing\.v1\.Payments: no service acme\.billing\.v1\.Payments in /);
    for (const s of ["lf.a2a.v1.A2AService", "acme.billing.v1.Billing", "acme.inventory.v1.Inventory"]) {
      expect(message).toContain(s);
    }
    expect(r.files.size).toBe(0);
  });

  it("refuses a name that is not a full service name", () => {
    expect(generate(["services=acme.billing.v1.Billing+"]).error?.message).toContain(
      "option services=acme.billing.v1.Billing+: empty service name; name services as PKG.Service",
    );
  });
});

describe("a service that gets output without a protocol version", () => {
  const head = (service: string, file: string, pkg: string) =>
    `${service} (${file}): no override entry sets api.protocolVersion for package ${pkg}, ` +
    "so it cannot get A2A output: ";

  it("is refused with default_overrides=false and no file of the user's that sets one", () => {
    const r = generate(["default_overrides=false"]);
    expect(r.error?.message).toBe(
      head("lf.a2a.v1.A2AService", A2A, "lf.a2a.v1") +
        "default_overrides=false leaves out proto/overrides/a2a-v1.0.1.yaml and no overrides= file is for it; " +
        "drop default_overrides=false, or add an api.protocolVersion entry with overrides=PATH",
    );
    expect(r.files.size).toBe(0);
    const mine = overrideFile("extra.yaml", "lf.a2a.v1", "operations.SendMessage.jsonrpcMethod", "message/send");
    expect(generate(["default_overrides=false", `overrides=${mine}`]).error?.message).toContain(
      `leaves out proto/overrides/a2a-v1.0.1.yaml and the overrides= files for it (${mine}) have none`,
    );
  });

  it("is generated with default_overrides=false when a file of the user's sets one", () => {
    const version = '{ version: "1.0", release: "1.0.1" }';
    const mine = overrideFile("version.yaml", "lf.a2a.v1", "api.protocolVersion", version);
    const r = generate(["default_overrides=false", `overrides=${mine}`]);
    expect(r.error).toBeUndefined();
    expect(r.files.get("v1.0.1/a2a_a2a.ts")).toContain('protocolVersion: "1.0"');
  });

  it("is refused when services= names a service that no override file covers", () => {
    const r = generate(["services=acme.inventory.v1.Inventory"]);
    expect(r.error?.message).toBe(
      head("acme.inventory.v1.Inventory", INVENTORY, "acme.inventory.v1") +
        "no overrides= file is for it; add an api.protocolVersion entry with overrides=PATH, " +
        "or leave acme.inventory.v1.Inventory out of services=",
    );
    expect(r.files.size).toBe(0);
  });
});

describe("a service of its own in A2A's package", () => {
  let withBilling: FileDescriptorProto[];
  const BILLING_RPC =
    "service Billing {\n  rpc Charge(GetTaskRequest) returns (Task) {\n" +
    '    option (google.api.http) = { post: "/charge" body: "*" };\n  }\n}\n';
  beforeAll(() => {
    const protos = mkdtempSync(join(tmpdir(), "a2a-own-service-"));
    const a2a = readFileSync(join(repoRoot, "proto/staged", A2A), "utf8");
    mkdirSync(join(protos, "v1.0.1"));
    writeFileSync(join(protos, A2A), `${a2a}\n${BILLING_RPC}`);
    withBilling = buildImage([], [protos]);
  });

  it("is one problem saying to move it or leave it out, not one per shipped entry it lacks", () => {
    const r = runPlugin(request(withBilling, [A2A], []));
    expect((r.error as GenerationError | undefined)?.problems).toEqual([
      `${A2A}: service lf.a2a.v1.Billing is in package lf.a2a.v1, whose shipped override files describe ` +
        "lf.a2a.v1.A2AService: give it a package of its own (with an overrides= file), or leave it out with " +
        "services=lf.a2a.v1.A2AService",
    ]);
  });

  it("is left out as the problem says, and the A2A service is generated", () => {
    const r = runPlugin(request(withBilling, [A2A], ["services=lf.a2a.v1.A2AService"]));
    expect(r.error).toBeUndefined();
    expect(r.files.get("v1.0.1/a2a_a2a.ts")).toContain("A2AServiceV1_0");
  });
});
