/**
 * The sources page (a2a_sources.md) explains every source tag the generated
 * pages and the shipped override files cite, links each upstream file at the
 * commit of its version in proto/a2a.lock.json, and every other page links it.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join, posix } from "node:path";
import { parse } from "yaml";
import { SOURCES_PAGE } from "../../src/emit/outputs.js";
import { readMarkdownPages } from "../helpers/samples.js";
import { repoRoot } from "../helpers/run.js";

const pages = readMarkdownPages();
const sources = pages.get(SOURCES_PAGE)!;
const lock = JSON.parse(readFileSync(join(repoRoot, "proto/a2a.lock.json"), "utf8")) as {
  repository: string;
  inputs: { version: string; commit: string }[];
};

/** The first cell of every table row of the sources page: the tags, FACTS sections and scenario ids it explains. */
const explained = new Set(
  sources
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("|---"))
    .map((l) => l.split(" | ")[0]!.slice(2).trim()),
);

/** The tags a text cites: upstream-style tags (P10, S03, MT10, SA03, …), FACTS and its sections, scenario ids. */
function citedTags(text: string): Set<string> {
  const tags = new Set<string>();
  for (const m of text.matchAll(/\b[A-Z]{1,4}\d{2}\b/g)) if (!/^I\d+$/.test(m[0])) tags.add(m[0]);
  for (const m of text.matchAll(/\bFACTS(?:\.md)?(?: ([A-H])\.\d+)?/g)) {
    tags.add("FACTS");
    if (m[1]) tags.add(m[1]);
  }
  if (/\bkey facts\b/i.test(text)) tags.add("Key facts");
  for (const m of text.matchAll(/\bscenarios? (I\d+)/g)) tags.add("scenario").add(m[1]!);
  return tags;
}

describe("the sources page", () => {
  it("is generated", () => expect(sources).toBeDefined());

  it.each([...pages.keys()])("explains every tag %s cites", (page) => {
    const missing = [...citedTags(pages.get(page)!)].filter((t) => !explained.has(t));
    expect(missing, `${page} cites tags ${SOURCES_PAGE} does not explain`).toEqual([]);
  });

  it("explains every tag of the shipped override files' source documents", () => {
    const dir = join(repoRoot, "proto/overrides");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
      type Entry = { id: string; source: { document: string; section: string } };
      const doc = parse(readFileSync(join(dir, file), "utf8")) as { entries: Entry[] };
      for (const e of doc.entries) {
        const documents = e.source.document.split(/[;,]/).map((d) => d.trim());
        const missing = [...documents, ...citedTags(e.source.section)].filter((t) => !explained.has(t));
        expect(missing, `${file} entry ${e.id}`).toEqual([]);
      }
    }
  });

  it("links each upstream file at the commit its version is pinned to", () => {
    const links = [...sources.matchAll(/\]\((https:\/\/github\.com\/[^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThanOrEqual(8);
    const commits = new Set(lock.inputs.map((i) => i.commit));
    for (const url of links) {
      const m = /^https:\/\/github\.com\/([^/]+\/[^/]+)\/blob\/([0-9a-f]{40})\/(.+)$/.exec(url);
      expect(m, url).not.toBeNull();
      expect(m![1]).toBe(lock.repository);
      expect(commits.has(m![2]!), url).toBe(true);
    }
    const row = (tag: string) => sources.split("\n").find((l) => l.startsWith(`| ${tag} |`)) ?? "";
    const commitOf = (version: string) => lock.inputs.find((i) => i.version === version)!.commit;
    expect(row("P10")).toContain(`/blob/${commitOf("v1.0.1")}/specification/a2a.proto)`);
    expect(row("P03")).toContain(`/blob/${commitOf("v0.3.0")}/specification/grpc/a2a.proto)`);
    expect(row("MT10")).toContain(`/blob/${commitOf("v1.0.1")}/docs/topics/multi-tenancy.md)`);
  });

  it.each([...pages.keys()].filter((p) => p !== SOURCES_PAGE))("is linked from %s", (page) => {
    const link = /\[the sources page\]\(([^)]+)\)/.exec(pages.get(page)!);
    expect(link, page).not.toBeNull();
    expect(posix.normalize(posix.join(posix.dirname(page), link![1]!))).toBe(SOURCES_PAGE);
  });
});
