/**
 * `replaces:` in a user override file: the entry takes the place of a shipped
 * one (or of one of an earlier user file), the overrides table says so, and
 * every way to get it wrong stops generation naming the file, line and entry.
 * The plugin runs in-process over v1.0.1/a2a.proto (test/helpers/in-process.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";
import { repoRoot } from "./helpers/run.js";

const SHIPPED = "proto/overrides/a2a-v1.0.1.yaml";
const shippedText = readFileSync(join(repoRoot, SHIPPED), "utf8");
/** The line of a shipped entry, as messages and the table give it. */
const lineOf = (id: string) => shippedText.split("\n").indexOf(`  - id: ${id}`) + 1;

let image: FileDescriptorProto[];
let dir: string;
let n = 0;

interface Entry {
  id: string;
  target: string;
  value: string;
  replaces?: string;
}

/** Writes a user override file for lf.a2a.v1 with the given entries (the first at line 4); returns its path. */
function userFile(...entries: Entry[]): string {
  const file = join(dir, `user-${++n}.yaml`);
  const lines = ["format: 2", "package: lf.a2a.v1", "entries:"];
  for (const e of entries) {
    lines.push(`  - id: ${e.id}`, `    target: ${e.target}`, `    value: ${e.value}`);
    lines.push('    source: { document: "acme", section: "4.2" }', '    decision: "acme build"');
    if (e.replaces !== undefined) lines.push(`    replaces: ${e.replaces}`);
  }
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

const version = (release: string): Omit<Entry, "id"> => ({
  target: "api.protocolVersion",
  value: `{ version: "1.0", release: "${release}" }`,
});
const generate = (opt: string[]) => runPlugin(request(image, ["v1.0.1/a2a.proto"], ["target=ts", ...opt]));

beforeAll(() => {
  image = buildImage(["v1.0.1"]);
  dir = mkdtempSync(join(tmpdir(), "a2a-replaces-"));
});

describe("replaces:", () => {
  it("drops the shipped entry, applies the new one in its place, and says so in the overrides table", () => {
    const file = userFile({ id: "acme-version", ...version("1.0.1-acme"), replaces: "protocol-version" });
    const r = generate([`overrides=${file}`]);
    expect(r.error).toBeUndefined();
    // Nothing but the note of a lone version (test/overrides-version-partner.test.ts).
    expect(r.stderr).toMatch(/^protoc-gen-a2a: lf\.a2a\.v1 is in this request without a2a\.v1, [^\n]*\n$/);
    const md = r.files.get("v1.0.1/a2a_overrides.md")!;
    expect(md).toContain("# A2AService v1.0.1-acme: overrides applied");
    const rows = md.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows[0]).toBe(
      "| `acme-version` | `api.protocolVersion` | protocol version 1.0 (release 1.0.1-acme) | acme, 4.2 | " +
        "acme build | " +
        `\`${file}\`; replaces shipped entry \`protocol-version\` from \`${SHIPPED}:${lineOf("protocol-version")}\` |`,
    );
    expect(rows.some((l) => l.startsWith("| `protocol-version`"))).toBe(false);
    expect(rows[1]).toMatch(/^\| `tenant-routes` /);
    // Everything else is as the shipped files alone make it.
    const shippedOnly = generate([]);
    const shippedMd = shippedOnly.files.get("v1.0.1/a2a_overrides.md")!;
    const shippedRows = shippedMd.split("\n").filter((l) => l.startsWith("| `"));
    expect(rows.slice(1)).toEqual(shippedRows.slice(1));
    const routes = (files: Map<string, string>) =>
      JSON.parse(files.get("v1.0.1/a2a_routes.json")!) as { routes: unknown };
    expect(routes(r.files).routes).toEqual(routes(shippedOnly.files).routes);
  });

  it("can replace an entry of an earlier user file, which replaced a shipped one", () => {
    const first = userFile({ id: "acme-version", ...version("1.0.1-acme"), replaces: "protocol-version" });
    const second = userFile({ id: "team-version", ...version("1.0.1-team"), replaces: "acme-version" });
    const r = generate([`overrides=${first}`, `overrides=${second}`]);
    expect(r.error).toBeUndefined();
    const md = r.files.get("v1.0.1/a2a_overrides.md")!;
    expect(md).toContain(`| \`${second}\`; replaces entry \`acme-version\` from \`${first}:4\` |`);
    expect(md).not.toContain("| `acme-version` |");
    expect(md).not.toContain("| `protocol-version` |");
  });

  it("refuses an id that no earlier file of the package has, naming file, line and entry", () => {
    const entry = { id: "first", target: "operations.GetTask.specRoute", value: '"GET /tasks/{id}"' };
    const file = userFile({ ...entry, replaces: "no-such-entry" });
    const r = generate([`overrides=${file}`]);
    expect(r.error?.message).toBe(
      `${file}:4: entry "first": replaces "no-such-entry", but no override file for package lf.a2a.v1 before it ` +
        `has an entry "no-such-entry" (files: ${SHIPPED}, proto/overrides/compat-v0.3.0-v1.0.1.yaml)`,
    );
    expect(r.files.size).toBe(0);
  });

  it("refuses an id of a shipped file that default_overrides=false leaves out", () => {
    const file = userFile({ id: "acme-version", ...version("1.0.1-acme"), replaces: "protocol-version" });
    const r = generate(["default_overrides=false", `overrides=${file}`]);
    expect(r.error?.message).toContain(
      `${file}:4: entry "acme-version": replaces "protocol-version" of ${SHIPPED}, ` +
        "which default_overrides=false leaves out",
    );
  });

  it("refuses an id of the same file, and two entries that replace the same one", () => {
    const same = userFile(
      { id: "a", ...version("1.0.1-a"), replaces: "protocol-version" },
      { id: "b", target: "api.tenantField", value: "null", replaces: "a" },
    );
    expect(generate([`overrides=${same}`]).error?.message).toBe(
      `${same}:10: entry "b": replaces "a", an entry of the same file (line 4); edit that entry instead`,
    );
    const one = userFile({ id: "a", ...version("1.0.1-a"), replaces: "protocol-version" });
    const two = userFile({ id: "b", ...version("1.0.1-b"), replaces: "protocol-version" });
    expect(generate([`overrides=${one}`, `overrides=${two}`]).error?.message).toBe(
      `${two}:4: entry "b": conflicts with ${one}:4: entry "a": both replace ` +
        `${SHIPPED}:${lineOf("protocol-version")}: entry "protocol-version"`,
    );
  });

  it("is schema-checked", () => {
    const file = userFile({ id: "acme-version", ...version("1.0.1-acme"), replaces: "Protocol Version" });
    expect(generate([`overrides=${file}`]).error?.message).toBe(
      `${file}:4: entry "acme-version": /replaces: must match pattern "^[a-z0-9][a-z0-9-]*$"`,
    );
  });

  it("needs the replacing entry to keep a protocol version when it replaces the shipped one", () => {
    const absent = '[{ name: "Legacy", note: "gone" }]';
    const entry = { id: "acme-absent", target: "api.absentOperations", value: absent, replaces: "protocol-version" };
    const file = userFile(entry);
    expect(generate([`overrides=${file}`]).error?.message).toContain(
      `the api.protocolVersion entry of ${SHIPPED} is replaced (replaces:) by an entry with another target`,
    );
  });
});

describe("an entry with the target of a shipped one, without replaces:", () => {
  it("conflicts as before, and the message suggests replaces:", () => {
    const file = userFile({ id: "acme-version", ...version("1.0.1-acme") });
    const r = generate([`overrides=${file}`]);
    expect(r.error?.message).toBe(
      `${file}:4: entry "acme-version": conflicts with ${SHIPPED}:${lineOf("protocol-version")}: ` +
        'entry "protocol-version": both target api.protocolVersion; ' +
        'to amend the shipped entry, add "replaces: protocol-version" to entry "acme-version"',
    );
    expect(r.files.size).toBe(0);
  });
});
