/**
 * The conversion IR (src/compat/conversion-ir.ts) on two small packages compiled by `buf build`: which step
 * each field becomes, the enum tables in the order of first use, what each function takes (its own needs and
 * those carried from the functions it calls, over several levels), and the problems it reports through
 * Problems, each naming the entry, the direction and the field, without printing anything.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { create, createFileRegistry, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { buildConversionIr, type ConversionIr } from "../src/compat/conversion-ir.js";
import type { CompatPlan, PlanPair, PlanStep } from "../src/compat/compat-plan.js";
import { Problems } from "../src/generation-error.js";
import { buildImage } from "./helpers/in-process.js";

const NEWER = `syntax = "proto3";
package ir.v2;
enum State { STATE_UNSPECIFIED = 0; STATE_ON = 1; STATE_NEW = 2; }
message Leaf { State state = 1; }
message Middle { Leaf leaf = 1; string note = 2; }
message Top { Middle middle = 1; repeated Leaf leaves = 2; string gone = 3; map<string, Middle> by_key = 4; }
message Plain { string text = 1; }
message Holder { repeated Plain plains = 1; Plain plain = 2; }
message Wide { int64 count = 1; string name = 2; }
`;
const OLDER = `syntax = "proto3";
package ir.v1;
enum State { STATE_UNSPECIFIED = 0; STATE_ON = 1; }
message Leaf { State state = 1; }
message Middle { Leaf leaf = 1; string note = 2; }
message Top { Middle middle = 1; repeated Leaf leaves = 2; map<string, Middle> by_key = 4; }
message Plain { string text = 1; }
message Holder { repeated Plain plains = 1; Plain plain = 2; }
message Wide { int64 count = 1; string title = 2; }
`;

let files: DescFile[];

beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), "a2a-ir-"));
  mkdirSync(join(root, "ir"));
  writeFileSync(join(root, "ir/v2.proto"), NEWER);
  writeFileSync(join(root, "ir/v1.proto"), OLDER);
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: buildImage([], [root]) }));
  files = ["ir/v2.proto", "ir/v1.proto"].map((name) => registry.getFile(name)!);
});

const copy = (from: string, op: "copy" | "message" = "copy", to = from): PlanStep => ({ from, op, to });

/** A pair of ir.v2.<name> and ir.v1.<name> with the same steps both ways unless `toNewer` is given. */
function pair(name: string, toOlder: PlanStep[], toNewer: PlanStep[] = toOlder): PlanPair {
  return {
    newer: `ir.v2.${name}`,
    older: `ir.v1.${name}`,
    toOlder,
    toNewer,
    dialectFields: {},
    wrappedBy: undefined,
    entry: `entry "${name}"`,
    source: undefined,
    decision: undefined,
  };
}

const plan = (pairs: PlanPair[]): CompatPlan => ({
  newer: "ir.v2",
  older: "ir.v1",
  pairs,
  unpaired: { newer: {}, older: {} },
});

const PAIRS = {
  leaf: pair("Leaf", [copy("state")]),
  middle: pair("Middle", [copy("leaf", "message"), copy("note")]),
  top: pair(
    "Top",
    [
      copy("middle", "message"),
      copy("leaves", "message"),
      { from: "gone", op: "lossy", reason: "v1 has no gone" },
      copy("by_key"),
    ],
    [copy("middle", "message"), copy("leaves", "message"), copy("by_key")],
  ),
  plain: pair("Plain", [copy("text")]),
  holder: pair("Holder", [copy("plains", "message"), copy("plain", "message")]),
};

function build(pairs: PlanPair[]): { ir: ConversionIr; problems: readonly string[] } {
  const problems = new Problems();
  const ir = buildConversionIr(plan(pairs), files, problems);
  return { ir, problems: problems.all };
}

/** Each function's needs, by `<newer short name> <direction>`. */
function needsOf(ir: ConversionIr): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, fns] of ir.functions) {
    for (const fn of [fns.toOlder, fns.toNewer]) {
      out[`${p.newer.name} ${fn.dir}`] = [fn.needs.at && "at", fn.needs.lost && "lost"].filter(Boolean).join("+");
    }
  }
  return out;
}

describe("the conversion IR", () => {
  it("turns each field into the step its kinds call for", () => {
    const { ir, problems } = build(Object.values(PAIRS));
    expect(problems).toEqual([]);
    const top = [...ir.functions].find(([p]) => p.newer.name === "Top")![1].toOlder;
    expect(top.steps.map((s) => `${s.op === "transform" ? s.transform.field : s.from.name}:${s.op}`)).toEqual([
      "middle:pair",
      "leaves:pair",
      "gone:lose",
      "by_key:pair",
    ]);
    const leaf = [...ir.functions].find(([p]) => p.newer.name === "Leaf")![1];
    expect(leaf.toOlder.steps.map((s) => s.op)).toEqual(["enum"]);
    expect([...ir.functions].find(([p]) => p.newer.name === "Plain")![1].toNewer.steps.map((s) => s.op)).toEqual([
      "copy",
    ]);
  });

  it("keeps one table per enum pair and direction, in the order of first use, by value name", () => {
    const { ir } = build(Object.values(PAIRS));
    expect(ir.tables.map((t) => `${t.from.typeName}→${t.to.typeName} ${JSON.stringify(t.entries)}`)).toEqual([
      "ir.v2.State→ir.v1.State [[0,0],[1,1]]",
      "ir.v1.State→ir.v2.State [[0,0],[1,1]]",
    ]);
  });

  it("carries needs from callee to caller over every level, and no further", () => {
    const { ir } = build(Object.values(PAIRS));
    expect(needsOf(ir)).toEqual({
      // An enum toward the older version reports an unknown number: path and losses.
      "Leaf toOlder": "at+lost",
      // Toward the newer version it is refused: the path only.
      "Leaf toNewer": "at",
      "Middle toOlder": "at+lost",
      "Middle toNewer": "at",
      "Top toOlder": "at+lost",
      "Top toNewer": "at",
      // Nothing below Plain can be lost or refused, so neither it nor its caller takes anything.
      "Plain toOlder": "",
      "Plain toNewer": "",
      "Holder toOlder": "",
      "Holder toNewer": "",
    });
  });

  it("gives a function its own loss even when nothing it calls loses", () => {
    const lossy = pair(
      "Holder",
      [copy("plains", "message"), { from: "plain", op: "lossy", reason: "r" }],
      [copy("plains", "message"), copy("plain", "message")],
    );
    const { ir } = build([PAIRS.plain, lossy]);
    expect(needsOf(ir)).toMatchObject({ "Holder toOlder": "at+lost", "Holder toNewer": "" });
  });

  it("reports every step it cannot carry, naming the entry, the direction and the field", () => {
    const { problems } = build([
      PAIRS.leaf,
      // Middle is not paired, so Top's middle and by_key have no function to call.
      pair("Top", [copy("middle", "message"), copy("leaves", "message"), copy("by_key"), copy("nothing")], []),
      pair("Wide", [copy("name", "copy", "title")], [copy("title", "copy", "nope")]),
    ]);
    expect(problems).toEqual([
      'entry "Top" (toOlder): ir.v2.Top.middle: ir.v2.Middle has no counterpart to convert it to',
      'entry "Top" (toOlder): ir.v2.Top.by_key: ir.v2.Middle has no counterpart to convert it to',
      'entry "Top" (toOlder): ir.v2.Top.nothing: no such field',
      'entry "Wide" (toOlder): ir.v1.Wide.count: 64-bit integers are not converted',
      'entry "Wide" (toNewer): ir.v1.Wide.title: no target field ir.v2.Wide.nope',
      'entry "Wide" (toNewer): ir.v2.Wide.count: 64-bit integers are not converted',
    ]);
  });

  it("checks a transform's definition against the pair: its members, messages and pairs", () => {
    const { problems } = build([
      PAIRS.plain,
      pair(
        "Holder",
        [{ from: "plain", op: "transform", transform: "blocking" }, copy("plains", "message")],
        [{ from: "plain", op: "transform", transform: "configurationBlocks" }],
      ),
    ]);
    expect(problems).toEqual([
      'entry "Holder" (toOlder): ir.v2.Holder.plain: the transform needs a field or oneof "return_immediately" ' +
        "in ir.v2.Holder",
      'entry "Holder" (toOlder): ir.v2.Holder.plain: the transform needs a field or oneof "blocking" in ir.v1.Holder',
      'entry "Holder" (toNewer): ir.v1.Holder.plain: the transform needs a field or oneof "configuration" ' +
        "in ir.v1.Holder",
      'entry "Holder" (toNewer): ir.v1.Holder.plain: the transform needs a field or oneof "configuration" ' +
        "in ir.v2.Holder",
      'entry "Holder" (toNewer): ir.v1.Holder.plain: the transform needs a message ir.v1.SendMessageConfiguration',
    ]);
  });
});
