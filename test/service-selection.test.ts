/**
 * Only A2A services get A2A output: in a request that holds a2a.proto beside a
 * consumer's own protos (test/fixtures/services: one service with
 * google.api.http rules, one without), the services that no override file
 * covers are skipped with one line on stderr each; services= picks services
 * explicitly. The plugin runs in-process on a request built by `buf build`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";
import { repoRoot } from "./helpers/run.js";

const A2A = "v1.0.1/a2a.proto";
const BILLING = "acme/billing/v1/billing.proto";
const INVENTORY = "acme/inventory/v1/inventory.proto";
const skipLine = (service: string, file: string, pkg: string) =>
  `protoc-gen-a2a: skipping ${service} (${file}): no override file covers package ${pkg}; ` +
  "add one with overrides=PATH\n";

let image: FileDescriptorProto[];
let dir: string;
const generate = (opt: string[] = []) => runPlugin(request(image, [A2A, BILLING, INVENTORY], ["target=ts", ...opt]));
const names = (files: Map<string, string>) => [...files.keys()].sort();

/** An override file for acme.billing.v1 that makes Billing an A2A service at protocol 1.0. */
function billingOverrides(): string {
  const file = join(dir, "billing.yaml");
  writeFileSync(
    file,
    [
      "package: acme.billing.v1",
      "entries:",
      "  - id: protocol-version",
      "    target: api.protocolVersion",
      '    value: { version: "1.0", release: "1.0.0" }',
      '    source: { document: "acme billing", section: "1" }',
      '    decision: "Billing speaks A2A 1.0."',
      "",
    ].join("\n"),
  );
  return file;
}

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
        skipLine("acme.inventory.v1.Inventory", INVENTORY, "acme.inventory.v1"),
    );
    const files = names(r.files);
    expect(files.filter((f) => f.startsWith("acme/"))).toEqual([]);
    const modules = ["a2a", "errors", "grpc", "jsonrpc", "rest", "routes"].map((s) => `${s}.ts`);
    const texts = ["errors.md", "operations.md", "overrides.md", "routes.json", "routes.md"];
    expect(files).toEqual([...modules, ...texts].map((s) => `v1.0.1/a2a_${s}`).sort());
    // The A2A output is the one the pinned proto gets alone.
    const alone = runPlugin(request(image, [A2A], ["target=ts"]));
    expect(alone.stderr).toBe("");
    expect(r.files).toEqual(alone.files);
  });

  it("get output once an override file covers their package", () => {
    const r = generate([`overrides=${billingOverrides()}`]);
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe(skipLine("acme.inventory.v1.Inventory", INVENTORY, "acme.inventory.v1"));
    expect(names(r.files)).toContain("acme/billing/v1/billing_routes.json");
    expect(r.files.get("acme/billing/v1/billing_a2a.ts")).toContain('"protocolVersion": "1.0"');
    expect(names(r.files)).toContain("v1.0.1/a2a_routes.json");
  });
});

describe("services=", () => {
  it("picks exactly the services it names, and says nothing of the others", () => {
    const r = generate([`overrides=${billingOverrides()}`, "services=acme.billing.v1.Billing"]);
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe("");
    const files = names(r.files);
    expect(files.every((f) => f.startsWith("acme/billing/v1/billing_")), files.join(", ")).toBe(true);
    expect(files).toContain("acme/billing/v1/billing_routes.json");
  });

  it("takes several services, repeated or joined with +", () => {
    const both = ["lf.a2a.v1.A2AService", "acme.billing.v1.Billing"];
    const joined = generate([`overrides=${billingOverrides()}`, `services=${both.join("+")}`]);
    const repeated = generate([`overrides=${billingOverrides()}`, ...both.map((s) => `services=${s}`)]);
    expect(joined.error).toBeUndefined();
    expect(joined.files).toEqual(repeated.files);
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
