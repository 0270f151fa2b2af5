/**
 * Plugin inputs are bounded (issue 9, item 13; issue 24): an override file must be a
 * regular file of at most 1 MiB, checked before it is opened (a device or a
 * FIFO would never end or block), and read no further than that (a procfs
 * file reports a size of 0); its aliases may not expand it past 1 MiB either,
 * and an alias cycle is refused, each as one problem naming the file and the
 * line; an error lists at most 50 problems and counts the rest; a file that is
 * not YAML is refused without echoing its text; strings in override files have
 * length limits. A file whose top level is not a mapping says what it holds, and one that does not load leaves
 * the other files' entries checked in the same run. Each run is in-process, bounded in time by the limits themselves.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";

let image: FileDescriptorProto[];
let dir: string;

const generate = (...opt: string[]) => runPlugin(request(image, ["v1.0.1/a2a.proto"], opt));

function overrideFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const entry = (fields: string) => `format: 2
package: lf.a2a.v1
entries:
  - id: acme
    target: api.protocolVersion
    value: { version: "1.0", release: "1.0.1" }
${fields}
`;

beforeAll(() => {
  image = buildImage(["v1.0.1"]);
  dir = mkdtempSync(join(tmpdir(), "a2a-bounds-"));
});

describe("override files given with overrides=", () => {
  it("refuses a device before reading it", () => {
    const r = generate("overrides=/dev/zero");
    expect(r.error?.message).toBe(
      "/dev/zero: a character device, not a regular file; overrides= takes the path of a YAML file",
    );
  });

  it("refuses a FIFO without blocking on it", () => {
    const fifo = join(dir, "pipe.yaml");
    execFileSync("mkfifo", [fifo]);
    const r = generate(`overrides=${fifo}`);
    expect(r.error?.message).toBe(`${fifo}: a FIFO, not a regular file; overrides= takes the path of a YAML file`);
  });

  it("refuses a folder", () => {
    const r = generate(`overrides=${dir}`);
    expect(r.error?.message).toBe(`${dir}: a folder, not a regular file; overrides= takes the path of a YAML file`);
  });

  it("refuses a file over 1 MiB, naming its size, before parsing it", () => {
    const big = overrideFile("big.yaml", `# ${"x".repeat(1024 * 1024)}\n`);
    const r = generate(`overrides=${big}`);
    expect(r.error?.message).toBe(`${big}: 1048579 bytes; an override file may have at most 1048576 bytes`);
  });

  it("reads a procfs file that reports a size of 0 no further than 1 MiB, and refuses it", () => {
    const r = generate("overrides=/proc/self/pagemap");
    expect(r.error?.message).toBe(
      "/proc/self/pagemap: more than 1048576 bytes (it reports a size of 0); " +
        "an override file may have at most 1048576 bytes",
    );
  });

  it("takes a file of exactly 1 MiB", () => {
    const text = entry('    source: { document: "acme", section: "1" }\n    decision: "acme"');
    const padded = text + "#".repeat(1024 * 1024 - Buffer.byteLength(text) - 1) + "\n";
    const r = generate("default_overrides=false", `overrides=${overrideFile("exact.yaml", padded)}`);
    expect(r.error).toBeUndefined();
    expect(r.files.get("v1.0.1/a2a_a2a.ts")).toContain('protocolVersion: "1.0"');
  });

  it("never echoes the text of a file that is not YAML", () => {
    const secret = "hunter2-secret";
    const files = [
      overrideFile("tag.yaml", `!${secret} [unclosed\n`),
      overrideFile("scalar.yaml", `key: "${secret}" {{{ ]\n`),
      overrideFile("block.yaml", `a: |${secret}\n  b\n`),
    ];
    for (const f of files) {
      const r = generate(`overrides=${f}`);
      expect(r.error?.message, f).toMatch(new RegExp(`${f}:\\d+:\\d+: YAML syntax error \\([A-Z_]+\\)`));
      expect(r.error?.message, f).not.toContain(secret);
    }
  });

  it("limits the length of strings: a JSON-RPC method name, a decision", () => {
    const longMethod = overrideFile(
      "method.yaml",
      `format: 2
package: lf.a2a.v1
entries:
  - id: long-method
    target: operations.SendMessage.jsonrpcMethod
    value: "${"m".repeat(129)}"
    source: { document: "acme", section: "1" }
    decision: "acme"
`,
    );
    const r = generate(`overrides=${longMethod}`);
    expect(r.error?.message).toContain(`${longMethod}:4: entry "long-method"`);
    expect(r.error?.message).toContain("must NOT have more than 128 characters");

    const longDecision = overrideFile(
      "decision.yaml",
      entry(`    source: { document: "acme", section: "1" }\n    decision: "${"d".repeat(4001)}"`),
    );
    const d = generate("default_overrides=false", `overrides=${longDecision}`);
    expect(d.error?.message).toContain(
      `${longDecision}:4: entry "acme": /decision: must NOT have more than 4000 characters`,
    );
  });
});

describe("aliases in override files", () => {
  /** 49 KB: one entry of 5,000 unknown keys, then 99 aliases of it (500,000 schema problems once expanded). */
  const wide = () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}: 1`).join(", ");
    return `format: 2\npackage: lf.a2a.v1\nentries:\n  - &e { ${keys} }\n${"  - *e\n".repeat(99)}`;
  };

  it("refuses 49 KB that aliases expand past 1 MiB: one problem naming the file and the alias's line", () => {
    const file = overrideFile("wide.yaml", wide());
    expect(Buffer.byteLength(wide())).toBeLessThan(50_000);
    const r = generate(`overrides=${file}`);
    expect(r.error?.message).toBe(
      // Line 31 holds the 27th alias: each copy of the entry counts about 39 KB (its keys and values).
      `${file}:31: the aliases expand the file past 1048576 bytes here; ` +
        "an override file may have at most 1048576 bytes, aliases expanded",
    );
  });

  it("refuses a billion laughs, naming the line where the expansion goes over", () => {
    const levels = Array.from({ length: 9 }, (_, i) =>
      i === 0
        ? `l0: &l0 [${Array(10).fill('"lol"').join(", ")}]`
        : `l${i}: &l${i} [${Array(10)
            .fill(`*l${i - 1}`)
            .join(", ")}]`,
    );
    const file = overrideFile("laughs.yaml", `format: 2\npackage: lf.a2a.v1\n${levels.join("\n")}\nentries: []\n`);
    const r = generate(`overrides=${file}`);
    expect(r.error?.message).toMatch(new RegExp(`^${file}:\\d+: the aliases expand the file past 1048576 bytes here;`));
    expect(Number(/:(\d+):/.exec(r.error!.message)![1])).toBeGreaterThan(3);
  });

  it("refuses an alias inside the node it names", () => {
    const file = overrideFile("cycle.yaml", "format: 2\npackage: lf.a2a.v1\nentries: &e\n  - *e\n");
    const r = generate(`overrides=${file}`);
    expect(r.error?.message).toBe(
      `${file}:4: an alias inside the node it names; override files cannot hold values that contain themselves`,
    );
  });

  it("takes a file that shares one anchored source among 150 entries", () => {
    const entries = Array.from(
      { length: 150 },
      (_, i) =>
        `  - id: e${i}\n    target: api.protocolVersion\n    value: { version: "1.0", release: "1.0.1" }\n` +
        `    source: ${i === 0 ? "&src " : "*src"}${i === 0 ? '{ document: "acme", section: "1" }' : ""}\n` +
        '    decision: "acme"\n',
    );
    const file = overrideFile("shared.yaml", `format: 2\npackage: lf.a2a.v1\nentries:\n${entries.join("")}`);
    const r = generate("default_overrides=false", `overrides=${file}`);
    // Read whole (the yaml package's default alias count, 100, would refuse it): all 150 entries reach the
    // check that one target is set once.
    expect(r.error?.message).toMatch(/^149 problems:\n/);
    expect(r.error?.message).toContain(
      `${file}:9: entry "e1": conflicts with ${file}:4: entry "e0": both target api.protocolVersion`,
    );
  });
});

describe("a run with many problems", () => {
  it("lists the first 50 and counts the rest", () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}: 1`).join(", ");
    const file = overrideFile("many.yaml", `format: 2\npackage: lf.a2a.v1\nentries:\n  - { ${keys} }\n`);
    const r = generate(`overrides=${file}`);
    const lines = r.error!.message.split("\n");
    expect(lines[0]).toMatch(/^50\d\d problems:$/);
    const total = Number(/^(\d+)/.exec(lines[0]!)![1]);
    expect(lines.filter((l) => l.startsWith("  - "))).toHaveLength(50);
    expect(lines.at(-1)).toBe(`  … and ${total - 50} more`);
    expect(r.error!.message.length).toBeLessThan(10_000);
  });
});

describe("the problems of several files come in one run", () => {
  const good = entry('    source: { document: "acme", section: "1" }\n    decision: "acme"');

  it("a file whose top level is not a mapping says what it holds", () => {
    const cases = [
      ["list.yaml", "- format: 2\n", "a list"],
      ["scalar.yaml", "format 2\n", "a single string value"],
      ["empty.yaml", "# nothing yet\n", "nothing"],
    ];
    for (const [name, text, holds] of cases) {
      const file = overrideFile(name!, text!);
      expect(generate(`overrides=${file}`).error?.message).toBe(
        `${file}: the file holds ${holds}; an override file is a mapping of format, package and entries`,
      );
    }
  });

  it("a file that does not load leaves the entries of the others checked", () => {
    const broken = overrideFile("broken.yaml", "format: 2\npackage: [\n");
    const bad = overrideFile("bad-target.yaml", good.replace("api.protocolVersion", "operations.Nope.jsonrpcMethod"));
    const r = generate(`overrides=${broken}`, `overrides=${bad}`);
    const [head, ...problems] = r.error!.message.split("\n");
    expect(head).toBe("2 problems:");
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(new RegExp(`^  - ${broken}:\\d+:\\d+: YAML syntax error`));
    expect(problems[1]).toMatch(new RegExp(`^  - ${bad}:4: entry "acme": .*Nope`));
  });

  it("an entry replacing an id that no loaded file has says the file that did not load may have it", () => {
    const broken = overrideFile("schema-broken.yaml", `${good}    typo: 1\n`);
    const replacing = overrideFile("replacing.yaml", good.replace("id: acme", "id: acme2\n    replaces: acme"));
    const r = generate(`overrides=${broken}`, `overrides=${replacing}`);
    const problems = r.error!.message.split("\n").slice(1);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(new RegExp(`^  - ${broken}:4: entry "acme": .*typo`));
    expect(problems[1]).toBe(
      `  - ${replacing}:4: entry "acme2": replaces "acme", but no override file for package lf.a2a.v1 before it ` +
        'has an entry "acme" (files: proto/overrides/a2a-v1.0.1.yaml, proto/overrides/compat-v0.3.0-v1.0.1.yaml); ' +
        `or in ${broken}, which did not load`,
    );
  });
});
