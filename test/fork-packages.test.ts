/**
 * A fork that renames both A2A packages (acme.a2a.v1 for v1.0.1, acme.a2a.v03 for v0.3.0) and brings the
 * shipped override files under those names with default_overrides=false. Its whole output, protoc-gen-es's
 * and ours from one request, must compile under the samples' strict options, importing the runtime as a
 * package: the task runtime's push payloads take lf.a2a.v1's Task, so a fork's a2a_compat.ts has none.
 * The version-partner note follows the pairs of the override files that apply, the user's included.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  CodeGeneratorResponseSchema,
  CodeGeneratorRequestSchema,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import type { GenerationError } from "../dist/generation-error.js";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";
import { repoRoot, run } from "./helpers/run.js";

const V1 = "acme/v1/a2a.proto";
const V03 = "acme/v03/a2a.proto";
let dir: string;
let image: FileDescriptorProto[];
let forkOverrides: string[];

/** The pinned text with both packages renamed, wherever it names them. */
const renamed = (text: string) =>
  text.replace(/(^|[^.\w])a2a\.v1\b/gm, "$1acme.a2a.v03").replace(/\blf\.a2a\.v1\b/g, "acme.a2a.v1");

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-fork-"));
  const protos = join(dir, "protos");
  for (const [from, to] of [
    ["v0.3.0/a2a.proto", V03],
    ["v1.0.1/a2a.proto", V1],
  ] as const) {
    mkdirSync(dirname(join(protos, to)), { recursive: true });
    writeFileSync(join(protos, to), renamed(readFileSync(join(repoRoot, "proto/staged", from), "utf8")));
  }
  image = buildImage([], [protos]);
  const shipped = join(repoRoot, "proto/overrides");
  forkOverrides = readdirSync(shipped).map((name) => {
    const file = join(dir, name);
    writeFileSync(file, renamed(readFileSync(join(shipped, name), "utf8")).replace(/^\$schema: .*$/m, ""));
    return file;
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fork's override files (those of the v0.3 package only with `withOlder`) as options. */
const forkOptions = (withOlder = true) => [
  "default_overrides=false",
  ...forkOverrides.filter((f) => withOlder || !f.endsWith("v0.3.0.yaml")).map((f) => `overrides=${f}`),
];

/** protoc-gen-es's files for the request, from its binary. */
function protocGenEs(files: string[]): Map<string, string> {
  const req = request(image, files, ["target=ts", "import_extension=js"]);
  const r = run(join(repoRoot, "node_modules/.bin/protoc-gen-es"), [], {
    input: Buffer.from(toBinary(CodeGeneratorRequestSchema, req)),
  });
  const res = fromBinary(CodeGeneratorResponseSchema, r.stdout);
  expect(res.error).toBe("");
  return new Map(res.file.map((f) => [f.name, f.content]));
}

describe("a fork with both packages renamed", () => {
  it("generates both versions and the bridge, and the output compiles", () => {
    const files = [V03, V1];
    const ours = runPlugin(request(image, files, ["target=ts", "import_extension=js", ...forkOptions()]));
    expect(ours.error).toBeUndefined();
    expect(ours.stderr).toBe("");
    const compat = ours.files.get("a2a_compat.ts");
    expect(compat).toContain("export function bridgeToOlder");
    expect(compat).not.toContain("olderPushPayloads");

    const out = join(dir, "out");
    const es = protocGenEs([...files, ...image.filter((f) => f.name.startsWith("google/api/")).map((f) => f.name)]);
    for (const [name, content] of [...es, ...ours.files]) {
      mkdirSync(dirname(join(out, "gen", name)), { recursive: true });
      writeFileSync(join(out, "gen", name), content);
    }
    symlinkSync(join(repoRoot, "node_modules"), join(out, "node_modules"));
    writeFileSync(join(out, "package.json"), '{ "type": "module" }\n');
    const config = { extends: join(repoRoot, "tsconfig.samples.json"), compilerOptions: { rootDir: "." } };
    writeFileSync(join(out, "tsconfig.json"), JSON.stringify({ ...config, include: ["gen/**/*.ts"] }));
    const tsc = run("node", [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", join(out, "tsconfig.json")]);
    expect(tsc.stdout.toString() + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  }, 120_000);

  it("one version alone: the note names the fork's other package", () => {
    // A user file for a package with no service here is refused: the v0.3 package's file stays out.
    const r = runPlugin(request(image, [V1], forkOptions(false)));
    expect(r.error).toBeUndefined();
    expect(r.stderr).toMatch(/^protoc-gen-a2a: acme\.a2a\.v1 is in this request without acme\.a2a\.v03, [^\n]*\n$/);
    expect(r.files.has("acme/v1/a2a_a2a.ts")).toBe(true);
  });
});

describe("a fork that adds an rpc to one version only", () => {
  /** An rpc taking the version's GetTaskRequest, whose task field is `id` in v1.0 and `name` in v0.3. */
  const rpc = (name: string, field: string) =>
    `  rpc ${name}(GetTaskRequest) returns (Task) {\n` +
    `    option (google.api.http) = { get: "/${name}/{${field}=*}" };\n  }\n`;
  let pinged: FileDescriptorProto[];
  beforeAll(() => {
    const protos = join(dir, "pinged");
    for (const [file, name, field] of [
      [V1, "Ping", "id"],
      [V03, "Pong", "name"],
    ] as const) {
      mkdirSync(dirname(join(protos, file)), { recursive: true });
      const text = readFileSync(join(dir, "protos", file), "utf8");
      writeFileSync(
        join(protos, file),
        text.replace(/^service A2AService \{\n/m, (s) => s + rpc(name, field)),
      );
    }
    pinged = buildImage([], [protos]);
  }, 60_000);

  it("is refused, naming the rpc and the entry that would declare it absent", () => {
    const r = runPlugin(request(pinged, [V03, V1], forkOptions()));
    expect((r.error as GenerationError | undefined)?.problems).toEqual([
      "acme/v1/a2a.proto: rpc acme.a2a.v1.A2AService.Ping has no counterpart in acme.a2a.v03.A2AService, so the " +
        "version bridge leaves it out: name it in the api.absentOperations entry of package acme.a2a.v03, or pair " +
        "an older rpc with it (operations.<rpc>.canonicalName)",
      "acme/v03/a2a.proto: rpc acme.a2a.v03.A2AService.Pong has no counterpart in acme.a2a.v1.A2AService (no rpc " +
        "Pong), so the version bridge leaves it out: name it in the api.absentOperations entry of package " +
        "acme.a2a.v1, or pair it (operations.Pong.canonicalName)",
    ]);
  });

  it("is generated once the other package declares it absent", () => {
    const [older, newer] = ["v0.3.0.yaml", "v1.0.1.yaml"].map((end) => forkOverrides.find((f) => f.endsWith(end))!);
    const olderText = readFileSync(older!, "utf8");
    const withPing = olderText.replace(
      /^( +)- name: ListTasks\n/m,
      (s, indent) => `${indent}- name: Ping\n${indent}  note: "acme only"\n${s}`,
    );
    expect(withPing).not.toBe(olderText);
    const absentPong =
      '\n  - id: pong-absent\n    target: api.absentOperations\n    value: [{ name: Pong, note: "acme v0.3 only" }]\n' +
      '    source: { document: "acme", section: "1" }\n    decision: "acme"\n';
    const declared = [join(dir, "declared-v0.3.0.yaml"), join(dir, "declared-v1.0.1.yaml")] as const;
    writeFileSync(declared[0], withPing);
    writeFileSync(declared[1], readFileSync(newer!, "utf8") + absentPong);
    const opt = forkOptions().map((o) =>
      o === `overrides=${older}`
        ? `overrides=${declared[0]}`
        : o === `overrides=${newer}`
          ? `overrides=${declared[1]}`
          : o,
    );
    const r = runPlugin(request(pinged, [V03, V1], opt));
    expect(r.error).toBeUndefined();
    expect(r.files.get("acme/v1/a2a_a2a.ts")).toContain('Ping: "Ping"');
    expect(r.files.get("acme/v03/a2a_a2a.ts")).toContain('Pong: "Pong"');
    const compat = r.files.get("a2a_compat.ts");
    expect(compat).toContain('{ older: "GetTask", newer: "GetTask" }');
    expect(compat).not.toMatch(/"Ping"|"Pong"/);
  });
});

describe("the pinned v1.0.1 with a user file that pairs it with another package", () => {
  it("names the user's partner, not the shipped one it replaces", () => {
    const file = join(dir, "repair.yaml");
    writeFileSync(
      file,
      "format: 2\npackage: lf.a2a.v1\nentries:\n  - id: repair\n    replaces: unpaired\n    target: compat.unpaired\n" +
        "    value: { otherPackage: acme.a2a.v03, newer: {}, older: {} }\n" +
        '    source: { document: "acme", section: "1" }\n    decision: "acme"\n',
    );
    const pinned = buildImage(["v1.0.1"]);
    const r = runPlugin(request(pinned, ["v1.0.1/a2a.proto"], [`overrides=${file}`]));
    expect(r.error).toBeUndefined();
    expect(r.stderr).toMatch(/^protoc-gen-a2a: lf\.a2a\.v1 is in this request without acme\.a2a\.v03, [^\n]*\n$/);
  }, 60_000);
});
