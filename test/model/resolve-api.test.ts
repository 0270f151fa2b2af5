/**
 * The resolution stage (src/model/resolve-api.ts) finishes the model before any emitter: a service whose override
 * files set no protocol version is a problem naming the service, its proto file and the override file, and nothing
 * is written; a service with one but no api.headers gets the default header rules there, once. The emitters' input
 * type has no optional version, release, headers or JSON-RPC params (checked by `npm run typecheck`, which
 * compiles the tests).
 * The plugin runs in-process on a request built by `buf build` from test/fixtures/services.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import type { HeaderRules } from "../../src/model/model-types.js";
import type { ResolvedApi, ResolvedOperation } from "../../src/model/resolve-api.js";
import type { emitStubs } from "../../src/emit/modules/stubs.js";
import type { writeOutputs } from "../../src/emit/outputs.js";
import type { routesJson } from "../../src/emit/modules/routes-module.js";
import type { operationsView, overridesView, versionsView } from "../../src/emit/docs/docs-view.js";
import { buildImage, request, runPlugin } from "../helpers/in-process.js";
import { repoRoot } from "../helpers/run.js";

const BILLING = "acme/billing/v1/billing.proto";
let image: FileDescriptorProto[];
let dir: string;

/** Writes an override file for acme.billing.v1 with one entry; returns its path. */
function overrideFile(name: string, target: string, value: string): string {
  const file = join(dir, name);
  const entry = [`  - id: ${name.replace(/\.yaml$/, "")}`, `    target: ${target}`, `    value: ${value}`];
  const tail = ['    source: { document: "test", section: "1" }', '    decision: "t"'];
  writeFileSync(file, ["format: 2", "package: acme.billing.v1", "entries:", ...entry, ...tail, ""].join("\n"));
  return file;
}

const generate = (overrides: string) =>
  runPlugin(request(image, [BILLING], ["target=ts", "services=acme.billing.v1.Billing", `overrides=${overrides}`]));

beforeAll(() => {
  image = buildImage([], [join(repoRoot, "test/fixtures/services")]);
  dir = mkdtempSync(join(tmpdir(), "a2a-resolve-"));
});

describe("resolving the model before emission", () => {
  it("refuses a service with no protocol version, naming the service, its proto file and the override file", () => {
    const file = overrideFile("stream-start.yaml", "api.streamStart", "first-event");
    const r = generate(file);
    expect(r.error?.message).toBe(
      `acme.billing.v1.Billing (${BILLING}): no override entry sets api.protocolVersion for package ` +
        `acme.billing.v1, so it cannot get A2A output: the overrides= files for it (${file}) have none; ` +
        "add an api.protocolVersion entry with overrides=PATH, or leave acme.billing.v1.Billing out of services=",
    );
    expect(r.files.size).toBe(0);
  });

  it("gives a service without api.headers the default header rules, and the version it has", () => {
    const r = generate(overrideFile("version.yaml", "api.protocolVersion", '{ version: "1.0", release: "1.0.0" }'));
    expect(r.error).toBeUndefined();
    const a2a = r.files.get("acme/billing/v1/billing_a2a.ts")!;
    expect(a2a).toContain("// acme.billing.v1.Billing at protocol 1.0: definition, handler and client types.");
    expect(a2a).toContain('protocolVersion: "1.0",\n  release: "1.0.0",');
    expect(a2a).toContain('  headers: {\n    versionHeader: null, grpcVersionKey: null, absentVersionMeans: "",');
    expect(a2a).toContain('extensionsHeader: "A2A-Extensions", grpcExtensionsKey: "a2a-extensions",\n  },');
    // The overrides page lists header rules only when an entry set them.
    expect(r.files.get("acme/billing/v1/billing_overrides.md")).not.toContain("## Service parameters");
  });

  it("hands the emitters a model with a required version, release and header rules", () => {
    expectTypeOf<ResolvedApi["protocolVersion"]>().toEqualTypeOf<string>();
    expectTypeOf<ResolvedApi["release"]>().toEqualTypeOf<string>();
    expectTypeOf<ResolvedApi["headers"]>().toEqualTypeOf<HeaderRules>();
    expectTypeOf<ResolvedOperation["jsonrpcParams"]>().toEqualTypeOf<readonly string[]>();
    expectTypeOf<Parameters<typeof emitStubs>[2]>().toEqualTypeOf<ResolvedApi>();
    expectTypeOf<Parameters<typeof writeOutputs>[2]>().toEqualTypeOf<readonly ResolvedApi[]>();
    expectTypeOf<Parameters<typeof routesJson>[0]>().toEqualTypeOf<ResolvedApi>();
    expectTypeOf<Parameters<typeof operationsView>[0]>().toEqualTypeOf<ResolvedApi>();
    expectTypeOf<Parameters<typeof overridesView>[0]>().toEqualTypeOf<ResolvedApi>();
    expectTypeOf<Parameters<typeof versionsView>[0]>().toEqualTypeOf<readonly ResolvedApi[]>();
  });

  // A type test: `npm run typecheck` (part of pretest and CI) compiles this file, and each @ts-expect-error
  // below fails it if that write compiles, i.e. if a level of the model stops being read-only.
  it("hands the emitters a model they cannot change: read-only all the way down", () => {
    // Each of these writes compiles on the fields as ApiModel declares them; DeepReadonly refuses it.
    const mutate = (api: ResolvedApi) => {
      // @ts-expect-error a list of the model
      api.errors.push(api.errors[0]!);
      // @ts-expect-error a map of the model
      api.inputOverrides.clear();
      // @ts-expect-error a list two levels down
      api.operations[0]!.bindings.length = 0;
    };
    expectTypeOf(mutate).parameter(0).toEqualTypeOf<ResolvedApi>();
  });
});
