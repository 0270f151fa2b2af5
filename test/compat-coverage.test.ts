/**
 * The cross-version coverage check: with the shipped compat entries nothing
 * is undeclared (generation passes and writes the mapping table); with one
 * entry removed, generation fails and lists every field it leaves uncovered.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatePinned, repoRoot, tempDir } from "./helpers/run.js";

const shipped = readFileSync(join(repoRoot, "proto/overrides/compat-v0.3.0-v1.0.1.yaml"), "utf8");

/** The shipped compat file without the entry whose id is given. */
function without(id: string): string {
  const start = shipped.indexOf(`  - id: ${id}\n`);
  const end = shipped.indexOf("\n  - id: ", start + 1);
  expect(start).toBeGreaterThan(0);
  return shipped.slice(0, start) + shipped.slice(end + 1);
}

describe("compat coverage", () => {
  it("passes with the shipped entries and writes the field-by-field table", () => {
    const table = readFileSync(join(repoRoot, "generated-samples/a2a_compat.md"), "utf8");
    expect(table).toContain("## `lf.a2a.v1.Part` ↔ `a2a.v1.Part`");
    expect(table).toMatch(/`reference_task_ids` \| – \| \*\*lossy\*\*/);
    expect(table).toContain("transform `blocking`");
  });

  it("fails on every uncovered field when an entry is missing, and writes nothing", () => {
    const dir = tempDir("compat");
    const file = join(dir, "compat.yaml");
    writeFileSync(file, without("message"));
    const out = join(dir, "out");
    const r = generatePinned(out, ["default_overrides=false", `overrides=${file}`]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("lf.a2a.v1.Message.parts has no counterpart in a2a.v1.Message");
    expect(r.stderr).toContain("lf.a2a.v1.Message.reference_task_ids has no counterpart in a2a.v1.Message");
    expect(r.stderr).toContain("a2a.v1.Message.content has no counterpart in lf.a2a.v1.Message");
    expect(existsSync(out)).toBe(false);
  });

  it("fails on dialectFields for a field the older proto carries or that does not exist, naming the entry", () => {
    const dir = tempDir("compat3");
    const file = join(dir, "compat.yaml");
    const bad = shipped.replace(
      "        reference_task_ids: referenceTaskIds\n",
      "        reference_task_ids: referenceTaskIds\n        parts: parts\n        no_such_field: x\n        message_id: 1bad.key\n",
    );
    expect(bad).not.toBe(shipped);
    writeFileSync(file, bad);
    const out = join(dir, "out");
    const r = generatePinned(out, ["default_overrides=false", `overrides=${file}`]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      /compat\.yaml:\d+: entry "message" \(dialectFields\): lf\.a2a\.v1\.Message\.parts is carried by the older proto already/,
    );
    expect(r.stderr).toContain('lf.a2a.v1.Message has no field "no_such_field"');
    expect(r.stderr).toContain('"1bad.key" is not a dotted key path');
    expect(existsSync(out)).toBe(false);
  });

  it("fails on an unknown transform and on a message left unpaired", () => {
    const dir = tempDir("compat2");
    const file = join(dir, "compat.yaml");
    writeFileSync(
      file,
      shipped
        .replace("{ transform: taskState }", "{ transform: guessState }")
        .replace('        a2a.v1.DataPart: "folded into v1.0 Part.data; see compat.Part"\n', ""),
    );
    const r = generatePinned(join(dir, "out"), ["default_overrides=false", `overrides=${file}`]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('unknown transform "guessState"');
    expect(r.stderr).toContain("a2a.v1.DataPart is no message's counterpart");
  });

  it("fails on a wrapped request that does not hold, naming the entry and each field", () => {
    const dir = tempDir("compat6");
    const file = join(dir, "compat.yaml");
    const bad = shipped.replace(
      'names: { parent: "tasks/{task_id}", config_id: "{id}" }',
      'names: { parent: "tasks/{taskid}", nothing: "{id}" }',
    );
    expect(bad).not.toBe(shipped);
    writeFileSync(file, bad);
    const out = join(dir, "out");
    const r = generatePinned(out, ["default_overrides=false", `overrides=${file}`]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      /compat\.yaml:\d+: entry "push-config" \(wrappedBy\): names\.parent: "\{taskid\}" names no/,
    );
    expect(r.stderr).toContain("a2a.v1.CreateTaskPushNotificationConfigRequest.config_id has no pattern in names");
    expect(r.stderr).toContain('a2a.v1.CreateTaskPushNotificationConfigRequest has no field "nothing"');
    expect(existsSync(out)).toBe(false);
  });

  it("fails on a transform the pair cannot take, naming the entry, the direction and the field", () => {
    const dir = tempDir("compat4");
    const file = join(dir, "compat.yaml");
    const bad = shipped.replace(
      "toOlder: { scheme: { transform: schemes } }",
      "toOlder: { scheme: { transform: blocking } }",
    );
    expect(bad).not.toBe(shipped);
    writeFileSync(file, bad);
    const out = join(dir, "out");
    const r = generatePinned(out, ["default_overrides=false", `overrides=${file}`]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      /compat\.yaml:\d+: entry "authentication-info" \(toOlder\): lf\.a2a\.v1\.AuthenticationInfo\.scheme: /,
    );
    expect(r.stderr).toContain(
      'the transform needs a field or oneof "return_immediately" in lf.a2a.v1.AuthenticationInfo',
    );
    expect(existsSync(out)).toBe(false);
  });

  it("fails on an a2a.json conversion it cannot write, before writing anything, naming the entry", () => {
    const dir = tempDir("compat5");
    const file = join(dir, "compat.yaml");
    const bad = shipped.replace(
      "        reference_task_ids: referenceTaskIds\n",
      "        reference_task_ids: reference.ids\n",
    );
    expect(bad).not.toBe(shipped);
    writeFileSync(file, bad);
    const shippedFile = (name: string) => `overrides=${join(repoRoot, "proto/overrides", name)}`;
    const out = join(dir, "out");
    const r = generatePinned(out, [
      "default_overrides=false",
      shippedFile("a2a-v0.3.0.yaml"),
      shippedFile("a2a-v1.0.1.yaml"),
      `overrides=${file}`,
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      /compat\.yaml:\d+: entry "message": dialectFields reference_task_ids: "reference\.ids" is nested; only the Part/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
