/**
 * The direct a2a.json conversions as src/compat/json-ir.ts derives them: each step of the message conversion IR
 * composed with the dialect's rule of its older field (dialect-ir.ts), on two small packages compiled by
 * `buf build` and a dialect written here. What the composition gives per step (its op, the a2a.json key it
 * reads or writes), the message's form where the dialect writes it whole, the keys only a2a.json carries, and
 * the problems for what has no a2a.json form, each naming the entry, the pair, the direction and the step.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { create, createFileRegistry, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime/protocol";
import type { PlanPair, PlanStep } from "../src/compat/compat-plan.js";
import { buildConversionIr } from "../src/compat/conversion-ir.js";
import { dialectRules } from "../src/compat/dialect-ir.js";
import { buildJsonIr, type JsonForm, type JsonIr } from "../src/compat/json-ir.js";
import { Problems } from "../src/generation-error.js";
import { buildImage } from "./helpers/in-process.js";

const body = (pkg: string, newer: boolean) => `syntax = "proto3";
package ${pkg};
import "google/protobuf/struct.proto";
enum Color { COLOR_UNSPECIFIED = 0; COLOR_RED = 1; }
message Item { string name = 1; Color color = 2; }
message Bag {
  map<string, string> labels = 1;
  map<string, Item> items = 2;
  repeated string tags = 3;
  google.protobuf.Struct meta = 4;
  ${newer ? "string note = 5;" : ""}
  repeated Item list = 6;
  Item first = 7;
  optional int64 count = 8;
}
message Either { oneof value { Item item = 1; Bag bag = 2; } }
message Items { repeated Item items = 1; }
message Nothing {}
message Wrapped { Item item = 1; }
`;

const DIALECT: JsonRpcDialect = {
  enums: { COLOR_RED: "red" },
  kinds: { "jr.v1.Item": "item" },
  renames: { "jr.v1.Bag.tags": "tagList" },
  part: {
    message: "jr.v1.NoPart",
    file: { message: "jr.v1.NoFile", uri: "uri", bytes: "bytes" },
    data: { message: "jr.v1.NoData", field: "data" },
  },
  unions: ["jr.v1.Either"],
  resourceNames: [],
  wrappers: [{ message: "jr.v1.Wrapped", field: "item", derived: {} }],
  arrayResults: { "jr.v1.Items": "items" },
  nullResults: ["jr.v1.Nothing"],
  alwaysEmit: { "jr.v1.Item": ["name"] },
};

let files: DescFile[];

beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), "a2a-json-ir-"));
  mkdirSync(join(root, "jr"));
  writeFileSync(join(root, "jr/v2.proto"), body("jr.v2", true));
  writeFileSync(join(root, "jr/v1.proto"), body("jr.v1", false));
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: buildImage([], [root]) }));
  files = ["jr/v2.proto", "jr/v1.proto"].map((name) => registry.getFile(name)!);
});

const copy = (from: string, op: "copy" | "message" = "copy"): PlanStep => ({ from, op, to: from });
const pair = (name: string, toOlder: PlanStep[], toNewer = toOlder, dialectFields = {}): PlanPair => ({
  newer: `jr.v2.${name}`,
  older: `jr.v1.${name}`,
  toOlder,
  toNewer,
  dialectFields,
  wrappedBy: undefined,
  entry: `entry "${name}"`,
  source: undefined,
  decision: undefined,
});

const BAG_COMMON = [
  copy("labels"),
  copy("items"),
  copy("tags"),
  copy("meta", "message"),
  copy("list", "message"),
  copy("first", "message"),
];
const ITEM = pair("Item", [copy("name"), copy("color")]);
const BAG = pair(
  "Bag",
  [...BAG_COMMON.slice(0, 4), { from: "note", op: "lossy", reason: "no note in v1" }, ...BAG_COMMON.slice(4)],
  BAG_COMMON,
  { note: "note" },
);

function build(pairs: PlanPair[]): { json: JsonIr; problems: readonly string[] } {
  const problems = new Problems();
  const plan = { newer: "jr.v2", older: "jr.v1", pairs, unpaired: { newer: {}, older: {} } };
  const ir = buildConversionIr(plan, files, problems);
  const older = files[1]!.messages as DescMessage[];
  const json = buildJsonIr(ir, dialectRules(DIALECT, older, problems), problems);
  return { json, problems: problems.all };
}

/** A form as `op key` per step (the older key the step reads or writes), or its kind. */
function shown(form: JsonForm): string | string[] {
  if (form.kind !== "fields") return form.kind;
  return form.steps.map((s) => {
    if (s.op === "transform") return `transform ${s.transform}`;
    if (s.op === "dialect") return `dialect ${s.from.name} → ${s.key}`;
    if (s.op === "lose") return `lose ${s.from.name}`;
    return `${s.op}${s.op === "map" ? ` of ${s.of}` : ""} ${s.from.name} → ${s.older.key}`;
  });
}

describe("the direct a2a.json conversions, derived on the IR", () => {
  it("composes each step with the dialect's key of its older field", () => {
    const { json, problems } = build([ITEM, BAG]);
    expect(problems).toEqual([]);
    const bag = json.find((p) => p.pair.newer.name === "Bag")!;
    expect(shown(bag.toOlder)).toEqual([
      "map of strings labels → labels",
      "map of messages items → items",
      // The dialect renames tags.
      "value tags → tagList",
      "value meta → meta",
      // Lost toward the older proto, but a2a.json keeps it under its own key.
      "dialect note → note",
      "message list → list",
      "message first → first",
    ]);
    expect(shown(bag.toNewer)).toEqual([
      "map of strings labels → labels",
      "map of messages items → items",
      "value tags → tagList",
      "value meta → meta",
      "message list → list",
      "message first → first",
    ]);
    // Toward the newer version the key a2a.json alone carries is read into the newer field.
    expect(bag.dialectReads.map((r) => `${r.key} → ${r.to.name}`)).toEqual(["note → note"]);
  });

  it("carries the older field's dialect rule in each step: its key, and whether a2a.json always has it", () => {
    const { json } = build([ITEM, BAG]);
    const item = json.find((p) => p.pair.newer.name === "Item")!;
    const steps = item.toOlder.kind === "fields" ? item.toOlder.steps : [];
    expect(steps.map((s) => (s.op === "value" ? `${s.older.key} ${s.older.always}` : s.op))).toEqual([
      "name true",
      "color false",
    ]);
    expect(item.rules.kindValue).toBe("item");
  });

  it("gives a message the dialect writes whole its form, and refuses the rules with no direct conversion", () => {
    const { json, problems } = build([
      ITEM,
      BAG,
      pair("Either", [copy("item", "message"), copy("bag", "message")]),
      pair("Items", [copy("items", "message")]),
      pair("Nothing", []),
      pair("Wrapped", [copy("item", "message")]),
    ]);
    const forms = Object.fromEntries(json.map((p) => [p.pair.newer.name, shown(p.toOlder)]));
    expect(forms).toMatchObject({ Either: "union", Items: "array" });
    expect(problems).toEqual([
      'entry "Nothing" (jr.v1.Nothing ↔ jr.v2.Nothing): the dialect\'s null result rule has no direct conversion',
      'entry "Nothing" (jr.v1.Nothing ↔ jr.v2.Nothing): the dialect\'s null result rule has no direct conversion',
      'entry "Wrapped" (jr.v1.Wrapped ↔ jr.v2.Wrapped): the dialect\'s wrapper rule has no direct conversion',
      'entry "Wrapped" (jr.v1.Wrapped ↔ jr.v2.Wrapped): the dialect\'s wrapper rule has no direct conversion',
    ]);
  });

  it("reports each step with no a2a.json form, naming the entry, the pair, the direction and the step", () => {
    const bag = pair("Bag", [...BAG_COMMON, copy("count")], [...BAG_COMMON, copy("count")], { labels: "a.b" });
    const { problems } = build([
      pair("Item", [copy("name"), { from: "color", op: "transform", transform: "part" }], [copy("name")]),
      bag,
      // A union holds its members only.
      pair("Either", [copy("item", "message"), { from: "bag", op: "lossy", reason: "r" }]),
    ]);
    expect(problems).toContain('entry "Item" (jr.v1.Item ↔ jr.v2.Item): toOlder step color (transform part)');
    expect(problems).toContain('entry "Bag" (jr.v1.Bag ↔ jr.v2.Bag): toOlder step count (copy)');
    expect(problems).toContain('entry "Bag" (jr.v1.Bag ↔ jr.v2.Bag): toNewer step count (copy)');
    expect(problems).toContain(
      'entry "Bag": dialectFields labels: "a.b" is nested; only the Part conversion reads nested keys',
    );
    expect(problems).toContain('entry "Either" (jr.v1.Either ↔ jr.v2.Either): toOlder step bag (lose)');
  });
});
