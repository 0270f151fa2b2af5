/**
 * Malformed inputs, end to end: each case runs the real plugin through the
 * real `buf generate` (or the real sync CLI) in a fresh temp directory and
 * checks that
 *
 *   1. the process exits non-zero,
 *   2. stderr names the place of the problem (proto file and RPC, template
 *      column, override file and entry, option key, pinned file and hashes),
 *   3. nothing is written: `out` (or proto/staged for sync) is absent or empty.
 *
 * Needs `npm run build` (dist/); stages proto/staged/google with the sync CLI
 * when it is missing.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cleanupTempDirs,
  lockFile,
  repoRoot,
  runBufGenerate,
  runSync,
  stagedGoogle,
  syncCli,
  type RunResult,
} from "./helpers/bad-input-harness.js";

const PROTO = "demo/v1/demo.proto";
const NO_DEFAULTS = "default_overrides=false";
const lock = JSON.parse(readFileSync(lockFile, "utf8")) as {
  inputs: { version: string; specDirPath: string; sha256: string }[];
};
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A small proto fixture: one service S in package demo.v1 with the given RPC bodies. */
function demoProto(rpcs: string): Record<string, string> {
  return {
    [PROTO]: `syntax = "proto3";
package demo.v1;

import "google/api/annotations.proto";

message Inner { string x = 1; }
message GetReq {
  string id = 1;
  string name = 2;
  repeated string tags = 3;
  map<string, string> labels = 4;
  Inner inner = 5;
}
message Resp { string id = 1; }

service S {
${rpcs}
}
`,
  };
}

const rpc = (name: string, rule: string) =>
  `  rpc ${name}(GetReq) returns (Resp) { option (google.api.http) = { ${rule} }; }`;
/** The fixture with one RPC S.Get carrying `rule`. */
const oneRpc = (rule: string) => demoProto(rpc("Get", rule));
const validProto = oneRpc(`get: "/things/{id}"`);

const source = `source: { document: "T", section: "1" }\n    decision: "test"`;
/** An override file for demo.v1; `entries` is the YAML of the entry list. */
const overrideFile = (entries: string) => `format: 2\npackage: demo.v1\nentries:\n${entries}`;
const entry = (id: string, target: string, value: string) =>
  `  - id: ${id}\n    target: ${target}\n    value: ${value}\n    ${source}\n`;
const OVR = "overrides/bad.yaml";
/** demo.v1 is no A2A package the plugin ships a file for: without an override file of its own, S would be skipped. */
const BASE = "overrides/base.yaml";
const baseFiles = {
  [BASE]: overrideFile(entry("protocol-version", "api.protocolVersion", `{ version: "1.0", release: "1.0.0" }`)),
};
const DEMO = [NO_DEFAULTS, `overrides=${BASE}`];

interface Case {
  name: string;
  run: () => Promise<RunResult>;
  /** Substrings (or patterns) that stderr must contain. */
  says: (string | RegExp)[];
}

/** A case whose fixture has one RPC S.Get with the given google.api.http rule. */
function templateCase(name: string, rule: string, says: (string | RegExp)[]): Case {
  return {
    name,
    run: () => runBufGenerate({ protos: oneRpc(rule), files: baseFiles, opt: DEMO }),
    says: [PROTO, "rpc demo.v1.S.Get", ...says],
  };
}

/** A case that applies one override file (overrides/bad.yaml) to the valid fixture. */
function overrideCase(name: string, yaml: string, says: (string | RegExp)[], protos = validProto): Case {
  return {
    name,
    run: () => runBufGenerate({ protos, files: { ...baseFiles, [OVR]: yaml }, opt: [...DEMO, `overrides=${OVR}`] }),
    says: [OVR, ...says],
  };
}

function optionCase(name: string, opt: string[], says: (string | RegExp)[]): Case {
  return { name, run: () => runBufGenerate({ protos: validProto, opt }), says };
}

const fixtureA = `syntax = "proto3";\npackage fixture.a;\nmessage A { string x = 1; }\n`;
const fixtureB = `syntax = "proto3";\npackage fixture.b;\nmessage B { string y = 1; }\n`;
const [pin0, pin1] = [lock.inputs[0]!, lock.inputs[1]!];

const cases: Case[] = [
  // ---- path templates: syntax (column) ----
  templateCase('template: unbalanced "{"', `get: "/things/{id"`, ['GET "/things/{id"', "column 9", 'unbalanced "{"']),
  templateCase('template: unbalanced "}"', `get: "/things/id}"`, ['GET "/things/id}"', "column 11", 'unbalanced "}"']),
  templateCase('template: "**" not the last segment', `get: "/things/**/{id}"`, [
    "column 9",
    '"**" must be the last segment',
  ]),
  templateCase("template: nested variables {a={b}}", `get: "/things/{id={name}}"`, [
    "column 13",
    "variables cannot nest",
  ]),
  templateCase('template: missing leading "/"', `get: "things/{id}"`, ["column 1", 'a template must start with "/"']),
  templateCase("template: bad percent escape", `get: "/things/%G1/{id}"`, ["column 9", "%XX escape"]),
  templateCase('template: empty verb after ":"', `post: "/things/{id}:" body: "*"`, [
    "column 14",
    'expected a verb after ":"',
  ]),

  // ---- path templates: binding against the request message ----
  templateCase("binding: variable names an unknown field", `get: "/things/{nope}"`, [
    'variable "nope" names no field "nope" in demo.v1.GetReq',
  ]),
  templateCase("binding: variable names a repeated field", `get: "/things/{tags}"`, [
    'variable "tags" names a repeated field',
  ]),
  templateCase("binding: variable names a map field", `get: "/things/{labels}"`, [
    'variable "labels" names a map field',
  ]),
  templateCase("binding: variable names a message field", `get: "/things/{inner}"`, [
    'variable "inner" names the message field demo.v1.Inner',
  ]),
  templateCase("binding: dotted variable through a scalar", `get: "/things/{id.x}"`, ['"id" is not a message']),
  templateCase("binding: same field bound twice", `get: "/things/{id}/copies/{id}"`, ['field "id" is bound twice']),
  templateCase("binding: body names a non-field", `post: "/things/{id}" body: "nope"`, [
    'body "nope" is not a field of demo.v1.GetReq',
  ]),
  templateCase("binding: body field also bound in the path", `post: "/things/{id}" body: "id"`, [
    'body field "id" is also bound in the path',
  ]),
  templateCase("binding: GET with a body", `get: "/things/{id}" body: "*"`, [
    'a GET binding cannot have a body (body: "*")',
  ]),
  templateCase("binding: DELETE with a body", `delete: "/things/{id}" body: "name"`, [
    "a DELETE binding cannot have a body",
  ]),
  templateCase("binding: response_body names a non-field", `get: "/things/{id}" response_body: "nope"`, [
    'response_body "nope" is not a field of demo.v1.Resp',
  ]),
  templateCase("binding: rule without a pattern", `body: "*"`, ["google.api.http rule has no pattern"]),
  templateCase(
    "binding: nested additional_bindings",
    `get: "/things/{id}" additional_bindings { get: "/v2/things/{id}" additional_bindings { get: "/v3/things/{id}" } }`,
    ['additional binding GET "/v2/things/{id}"', "additional_bindings must not nest"],
  ),
  {
    name: "route table: duplicate route (same verb and shape, different variable names)",
    run: () =>
      runBufGenerate({
        protos: demoProto([rpc("Get", `get: "/things/{id}"`), rpc("GetByName", `get: "/things/{name}"`)].join("\n")),
        files: baseFiles,
        opt: DEMO,
      }),
    says: [PROTO, "duplicate route", "GET /things/{id} (Get", "GET /things/{name} (GetByName"],
  },

  // ---- override files ----
  overrideCase(
    "overrides: YAML syntax error",
    overrideFile(`  - id: broken\n    target: [operations.Get.jsonrpcMethod\n    value: x\n`),
    [/overrides\/bad\.yaml:\d+:\d+: YAML syntax error/],
  ),
  overrideCase(
    "overrides: unknown key in an entry",
    overrideFile(entry("get-method", "operations.Get.jsonrpcMethod", "demo/get") + "    colour: red\n"),
    [`${OVR}:4: entry "get-method"`, 'unknown key "colour"'],
  ),
  overrideCase(
    "overrides: a user file for a package not in the request",
    overrideFile(entry("get-method", "operations.Get.jsonrpcMethod", "demo/get")).replace(
      "package: demo.v1",
      "package: demo.v2",
    ),
    ['package "demo.v2" has no service in this request', "demo.v1"],
  ),
  overrideCase(
    "overrides: target names an RPC that does not exist",
    overrideFile(entry("ghost", "operations.Nope.jsonrpcMethod", "demo/nope")),
    [`${OVR}:4: entry "ghost"`, 'names no RPC "Nope" in demo.v1.S', PROTO],
  ),
  overrideCase(
    "overrides: unknown operation target property",
    overrideFile(entry("colour", "operations.Get.colour", "red")),
    [`${OVR}:4: entry "colour"`, 'unknown target "operations.Get.colour"', "operations.<rpc>.jsonrpcMethod"],
  ),
  overrideCase("overrides: unknown api target property", overrideFile(entry("flavour", "api.flavour", "vanilla")), [
    `${OVR}:4: entry "flavour"`,
    'unknown target "api.flavour"',
    "api.protocolVersion",
  ]),
  overrideCase(
    "overrides: two entries with the same target conflict",
    overrideFile(
      entry("first", "operations.Get.jsonrpcMethod", "demo/a") +
        entry("second", "operations.Get.jsonrpcMethod", "demo/b"),
    ),
    [`${OVR}:9: entry "second": conflicts with ${OVR}:4: entry "first"`, "both target operations.Get.jsonrpcMethod"],
  ),
  {
    name: "overrides: the same target in two different files conflicts",
    run: () =>
      runBufGenerate({
        protos: validProto,
        files: {
          ...baseFiles,
          "overrides/one.yaml": overrideFile(entry("from-one", "operations.Get.jsonrpcMethod", "demo/a")),
          "overrides/two.yaml": overrideFile(entry("from-two", "operations.Get.jsonrpcMethod", "demo/b")),
        },
        opt: [...DEMO, "overrides=overrides/one.yaml", "overrides=overrides/two.yaml"],
      }),
    says: [
      'overrides/two.yaml:4: entry "from-two": conflicts with overrides/one.yaml:4: entry "from-one"',
      'to amend that entry, add "replaces: from-one" to entry "from-two"',
    ],
  },
  {
    name: "overrides: no file sets the protocol version of a service that gets output",
    run: () =>
      runBufGenerate({
        protos: validProto,
        files: { [OVR]: overrideFile(entry("get-method", "operations.Get.jsonrpcMethod", "demo/get")) },
        opt: [NO_DEFAULTS, `overrides=${OVR}`],
      }),
    says: [
      `demo.v1.S (${PROTO}): no override entry sets api.protocolVersion for package demo.v1`,
      `the overrides= files for it (${OVR}) have none`,
    ],
  },
  overrideCase(
    "overrides: a file of format 1 (compat keys toV03/toV10)",
    overrideFile(entry("get-method", "operations.Get.jsonrpcMethod", "demo/get")).replace("format: 2\n", ""),
    [`${OVR}: override file format 1 (no format key) is not read`, "rename toV03/toV10 to toOlder/toNewer"],
  ),
  overrideCase(
    "overrides: replaces names no entry of an earlier file",
    overrideFile(entry("get-method", "operations.Get.jsonrpcMethod", "demo/get") + "    replaces: nope\n"),
    [
      `${OVR}:4: entry "get-method": replaces "nope"`,
      `no override file for package demo.v1 before it has an entry "nope"`,
    ],
  ),
  overrideCase(
    "overrides: duplicate entry id in one file",
    overrideFile(
      entry("same", "operations.Get.jsonrpcMethod", "demo/a") + entry("same", "operations.Get.canonicalName", "Get"),
    ),
    [`${OVR}:9: entry "same": the id is already used at line 4`],
  ),
  overrideCase(
    "overrides: value of the wrong shape",
    overrideFile(entry("params", "operations.Get.jsonrpcParams", "42")),
    [`${OVR}:4: entry "params"`, "value for operations.Get.jsonrpcParams is invalid", "must be array"],
  ),
  overrideCase(
    "overrides: extra route with a bad template",
    overrideFile(
      entry("extra", "operations.Get.extraRoutes", `[{ method: POST, template: "/things/{id", body: "*" }]`),
    ),
    [`${OVR}:4: entry "extra"`, `(${PROTO}: rpc Get)`, "column 9", 'unbalanced "{"'],
  ),
  overrideCase(
    "overrides: tenantField that is not a request field",
    overrideFile(entry("tenant", "api.tenantField", "tenant")),
    [`${OVR}:4: entry "tenant"`, '"tenant" is not a field of the request of Get'],
  ),
  {
    name: "overrides: override file path does not exist",
    run: () => runBufGenerate({ protos: validProto, files: baseFiles, opt: [...DEMO, "overrides=missing/nope.yaml"] }),
    says: [/\S*missing\/nope\.yaml: cannot read override file: ENOENT/],
  },

  // ---- plugin options ----
  optionCase(
    "options: unknown plugin option",
    ["colour=red"],
    [
      'unknown option "colour"',
      "valid options are emit, openapi_format, overrides, default_overrides, services, target",
    ],
  ),
  optionCase(
    "options: bad emit value",
    [NO_DEFAULTS, "emit=routes+pdf"],
    ["option emit=routes+pdf", 'unknown output "pdf"', "routes, docs"],
  ),
  optionCase(
    "options: bad openapi_format value",
    [NO_DEFAULTS, "openapi_format=xml"],
    ["option openapi_format=xml", "use yaml or json"],
  ),
  optionCase("options: empty emit value", [NO_DEFAULTS, "emit="], ["option emit=", "valid outputs are routes, docs"]),
  optionCase(
    "options: default_overrides not a boolean",
    ["default_overrides=maybe"],
    ["option default_overrides=maybe", "use true or false"],
  ),
  optionCase("options: overrides without a path", [NO_DEFAULTS, "overrides="], ["option overrides= needs a file path"]),
  optionCase(
    "options: services= names no service of the request",
    [NO_DEFAULTS, "services=demo.v1.Nope"],
    ["option services=demo.v1.Nope: no service demo.v1.Nope in the files to generate", "demo.v1.S"],
  ),

  // ---- sync: pinned protos ----
  {
    name: "sync: pinned file missing",
    run: () => runSync({ spec: {} }),
    says: [
      `${pin0.specDirPath}: pinned file for ${pin0.version}`,
      "is missing",
      `expected sha256 ${pin0.sha256}`,
      "A2A_SPEC_DIR",
    ],
  },
  {
    name: "sync: sha256 mismatch",
    run: () => runSync({ spec: { [pin0.specDirPath]: fixtureA, [pin1.specDirPath]: fixtureB } }),
    says: [
      `${pin0.specDirPath}: sha256 mismatch for ${pin0.version}`,
      `expected ${pin0.sha256}`,
      `found ${sha256(fixtureA)}`,
    ],
  },
  {
    name: "sync: second pinned file mismatches after the first verified (nothing staged)",
    run: () =>
      runSync({
        spec: { [pin0.specDirPath]: fixtureA, [pin1.specDirPath]: fixtureB },
        lock: (l) => {
          l.inputs[0]!.sha256 = sha256(fixtureA);
        },
      }),
    says: [
      `${pin1.specDirPath}: sha256 mismatch for ${pin1.version}`,
      `expected ${pin1.sha256}`,
      `found ${sha256(fixtureB)}`,
    ],
  },
  {
    name: "sync: second pinned file missing after the first verified (nothing staged)",
    run: () =>
      runSync({
        spec: { [pin0.specDirPath]: fixtureA },
        lock: (l) => {
          l.inputs[0]!.sha256 = sha256(fixtureA);
        },
      }),
    says: [`${pin1.specDirPath}: pinned file for ${pin1.version}`, "is missing", `expected sha256 ${pin1.sha256}`],
  },
  {
    name: "sync: pinned file imports a google proto that does not exist",
    run: () => {
      const importing = `syntax = "proto3";\npackage fixture.a;\nimport "google/api/does_not_exist.proto";\n`;
      return runSync({
        spec: { [pin0.specDirPath]: importing, [pin1.specDirPath]: fixtureB },
        lock: (l) => {
          l.inputs[0]!.sha256 = sha256(importing);
          l.inputs[1]!.sha256 = sha256(fixtureB);
        },
      });
    },
    says: ['google/api/does_not_exist.proto: imported as "google/api/does_not_exist.proto" but not found'],
  },
];

beforeAll(() => {
  if (!existsSync(join(repoRoot, "dist/plugin.js")) || !existsSync(syncCli)) {
    const b = spawnSync("npm", ["run", "build"], { cwd: repoRoot, encoding: "utf8" });
    if (b.status !== 0) throw new Error(`npm run build failed:\n${b.stdout}${b.stderr}`);
  }
  if (!existsSync(join(stagedGoogle, "api/annotations.proto"))) {
    const s = spawnSync(process.execPath, [syncCli], { cwd: repoRoot, encoding: "utf8" });
    if (s.status !== 0) throw new Error(`npm run sync failed:\n${s.stderr}`);
  }
});

afterAll(() => cleanupTempDirs());

describe("bad input", () => {
  it("has at least 22 malformed-input cases with unique names", () => {
    expect(cases.length).toBeGreaterThanOrEqual(22);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  // Control: the harness itself works, so failures below are the plugin's.
  it.concurrent("control: the valid fixture generates output", async () => {
    const r = await runBufGenerate({ protos: validProto, files: baseFiles, opt: DEMO });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.outputFiles).toContain("demo/v1/demo_routes.json");
  });

  it.concurrent.each(cases)("$name", async ({ run, says }) => {
    const r = await run();
    const context = `stderr:\n${r.stderr}\nstdout:\n${r.stdout}`;
    // (1) non-zero exit
    expect(r.code, context).not.toBe(0);
    // (2) stderr names the place, and the failure is the tool's own (not, say, a buf compile error)
    expect(r.stderr, context).toContain(r.tool === "buf" ? "protoc-gen-a2a: " : "sync: ");
    for (const s of says) {
      if (typeof s === "string") expect(r.stderr, context).toContain(s);
      else expect(r.stderr, context).toMatch(s);
    }
    // (3) no partial output: buf's `out` absent or empty; sync never creates proto/staged
    if (r.tool === "sync") expect(r.outputFiles, `staged: ${JSON.stringify(r.outputFiles)}`).toBeNull();
    else expect(r.outputFiles ?? [], `written: ${JSON.stringify(r.outputFiles)}`).toEqual([]);
  });
});
