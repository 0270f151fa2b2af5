/**
 * The JavaScript and declaration targets (target=js+dts), generated with
 * protoc-gen-es beside them as a user's buf.gen.yaml would: the declarations
 * type-check under strict with skipLibCheck off, a consumer written against
 * them compiles (and a wrong call does not), and the JavaScript runs. The
 * output goes below the repository so that it resolves `@protoc-gen-a2a/runtime`
 * and @bufbuild/protobuf as an installed project would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bufBin, repoRoot, run } from "../helpers/run.js";

const scratch = join(repoRoot, ".test-out");
let dir: string;

const tsc = (project: string) => run("node", [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", project]);

beforeAll(() => {
  mkdirSync(scratch, { recursive: true });
  dir = mkdtempSync(join(scratch, "js-dts-"));
  const template = JSON.stringify({
    version: "v2",
    inputs: [
      { directory: "proto/staged", paths: ["proto/staged/v0.3.0", "proto/staged/v1.0.1", "proto/staged/google/api"] },
    ],
    plugins: [
      {
        local: join(repoRoot, "node_modules/.bin/protoc-gen-es"),
        out: join(dir, "gen"),
        opt: ["target=js+dts", "import_extension=js"],
      },
      {
        local: ["node", join(repoRoot, "bin/protoc-gen-a2a.cjs")],
        out: join(dir, "gen"),
        strategy: "all",
        opt: ["target=js+dts", "import_extension=js"],
      },
    ],
  });
  const r = run(bufBin, ["generate", "--template", template]);
  expect(r.stderr).toBe("");
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    lib: ["ES2022", "DOM"],
    types: ["node"],
  };
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: options, include: ["gen/**/*.d.ts", "consumer.ts"] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("target=js+dts", () => {
  it("declarations type-check, and a consumer compiles against them", () => {
    writeFileSync(
      join(dir, "consumer.ts"),
      `import { create, type JsonValue } from "@bufbuild/protobuf";
import type { Loss } from "@protoc-gen-a2a/runtime";
import { toOlderJson, fromOlderJson, bridgeToOlder, a2aCompatJson } from "./gen/a2a_compat.js";
import { SendMessageRequestSchema, TaskSchema, type SendMessageRequest } from "./gen/v1.0.1/a2a_pb.js";
import type { A2AServiceHandler } from "./gen/v1.0.1/a2a_a2a.js";
const out: { json: JsonValue; lost: Loss[] } = toOlderJson(create(TaskSchema, { id: "t" }), (l: Loss) => void l);
const req: SendMessageRequest = fromOlderJson(SendMessageRequestSchema, { message: { messageId: "m", role: "user", parts: [] } }).message;
declare const handler: A2AServiceHandler;
const older = bridgeToOlder(handler);
export { out, req, older, a2aCompatJson };
`,
    );
    const r = tsc(join(dir, "tsconfig.json"));
    expect(r.stdout.toString() + r.stderr).toBe("");
    expect(r.status).toBe(0);
    // The declarations carry types: a wrong argument is refused.
    writeFileSync(
      join(dir, "consumer.ts"),
      `import { toOlderJson } from "./gen/a2a_compat.js";\nexport const x = toOlderJson("not a task");\n`,
    );
    const wrong = tsc(join(dir, "tsconfig.json"));
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout.toString()).toMatch(/consumer\.ts.*not assignable/);
  });

  it("the JavaScript runs: a v1.0 task written as a2a.json and read back", () => {
    const script = `
import { create } from "@bufbuild/protobuf";
import { toOlderJson, fromOlderJson } from "./gen/a2a_compat.js";
import { TaskSchema, TaskState } from "./gen/v1.0.1/a2a_pb.js";
const task = create(TaskSchema, { id: "t-1", contextId: "c-1", status: { state: TaskState.COMPLETED } });
const { json } = toOlderJson(task);
const back = fromOlderJson(TaskSchema, json).message;
console.log(JSON.stringify({ json, back: [back.id, back.status.state] }));
`;
    writeFileSync(join(dir, "run.mjs"), script);
    const r = run("node", [join(dir, "run.mjs")], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout.toString())).toEqual({
      json: { kind: "task", id: "t-1", contextId: "c-1", status: { state: "completed" } },
      back: ["t-1", 3],
    });
  });
});
