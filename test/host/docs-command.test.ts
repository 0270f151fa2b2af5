/**
 * `protoc-gen-a2a docs <openapi>... --out <dir>` (issue 24), in-process on documents written here: pages
 * rendered by the real Redocly CLI (this repository's devDependency, found from the package's location),
 * named after the documents' paths; copies of the documents and of an OpenRPC document beside one; an
 * index linking them; other files of <dir> left alone. Refusals are one line naming the file, before
 * anything is written: a document that is not OpenAPI, a FIFO, two documents that would share a page.
 * The run from an installed tarball, with and without Redocly CLI, is in installed-package.test.ts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { runDocsCommand, siteDocuments } from "../../dist/host/docs-command.js";
import { tempDir } from "../helpers/run.js";

const openapi = (title: string, ops: string[]) =>
  `openapi: 3.1.0\ninfo: { title: "${title}", version: "1" }\npaths:\n` +
  ops
    .map((op) => `  /${op}:\n    get:\n      operationId: ${op}\n      responses: { "200": { description: ok } }\n`)
    .join("");

let out: string[];
let err: string[];
let spies: MockInstance[];
beforeEach(() => {
  out = [];
  err = [];
  spies = [
    vi.spyOn(process.stdout, "write").mockImplementation((s) => out.push(String(s)) > 0),
    vi.spyOn(process.stderr, "write").mockImplementation((s) => err.push(String(s)) > 0),
  ];
});
afterEach(() => {
  for (const s of spies) s.mockRestore();
});

function project(): string {
  const dir = tempDir("docs-cmd");
  mkdirSync(join(dir, "gen/v1"), { recursive: true });
  mkdirSync(join(dir, "gen/v2"), { recursive: true });
  writeFileSync(join(dir, "gen/v1/a2a_openapi.yaml"), openapi("Old API", ["ping"]));
  writeFileSync(join(dir, "gen/v1/a2a_openrpc.json"), '{"openrpc":"1.3.2"}\n');
  writeFileSync(
    join(dir, "gen/v2/a2a_openapi.json"),
    JSON.stringify({
      openapi: "3.1.0",
      info: { title: "New <API>", version: "2" },
      paths: { "/a": { get: { operationId: "a" } }, "/b": { post: { operationId: "b" } } },
    }),
  );
  return dir;
}

describe("protoc-gen-a2a docs", () => {
  it("renders each document into a page, copies the documents, and links them from an index", () => {
    const dir = project();
    mkdirSync(join(dir, "site"));
    writeFileSync(join(dir, "site/mine.txt"), "kept\n");
    const code = runDocsCommand(["gen/v1/a2a_openapi.yaml", "gen/v2/a2a_openapi.json", "--out", "site"], dir);
    expect(err.join("")).toBe("");
    expect(code).toBe(0);
    const site = join(dir, "site");
    expect(out.join("")).toBe(
      `${site}/v1-a2a_openapi.html  (1 operations)\n${site}/v2-a2a_openapi.html  (2 operations)\n${site}/index.html\n`,
    );
    const page = readFileSync(join(site, "v1-a2a_openapi.html"), "utf8");
    expect(page).toContain("<title>Old API</title>");
    expect(page).not.toMatch(/<script[^>]+src="https?:/); // Redoc's script is inlined
    expect(readFileSync(join(site, "v1-a2a_openapi.yaml"), "utf8")).toBe(openapi("Old API", ["ping"]));
    expect(readFileSync(join(site, "v1-a2a_openrpc.json"), "utf8")).toBe('{"openrpc":"1.3.2"}\n');
    expect(existsSync(join(site, "v2-a2a_openapi.json"))).toBe(true);
    expect(existsSync(join(site, "v2-a2a_openrpc.json"))).toBe(false);
    expect(readFileSync(join(site, "mine.txt"), "utf8")).toBe("kept\n");
    const index = readFileSync(join(site, "index.html"), "utf8");
    expect(index).toContain(
      '<li><a href="v1-a2a_openapi.html">Old API</a> (1 operations) · <a href="v1-a2a_openapi.yaml">OpenAPI (YAML)</a>' +
        ' · <a href="v1-a2a_openrpc.json">OpenRPC (JSON-RPC)</a></li>',
    );
    expect(index).toContain(
      '<li><a href="v2-a2a_openapi.html">New &lt;API&gt;</a> (2 operations) · ' +
        '<a href="v2-a2a_openapi.json">OpenAPI (JSON)</a></li>',
    );
  }, 120_000);

  it("refuses a document that is not OpenAPI, naming it, before writing anything", () => {
    const dir = project();
    writeFileSync(join(dir, "gen/notes.yaml"), "title: not an API\n");
    const code = runDocsCommand(["gen/v1/a2a_openapi.yaml", "gen/notes.yaml", "--out", "site"], dir);
    expect(code).toBe(1);
    expect(err.join("")).toBe(
      `protoc-gen-a2a docs: ${join(dir, "gen/notes.yaml")}: not an OpenAPI document ` +
        '(it needs an "openapi" version and info.title)\n',
    );
    expect(existsSync(join(dir, "site"))).toBe(false);
  });

  it("refuses a FIFO without blocking on it", () => {
    const dir = project();
    execFileSync("mkfifo", [join(dir, "pipe.yaml")]);
    expect(runDocsCommand(["pipe.yaml"], dir)).toBe(1);
    expect(err.join("")).toBe(
      `protoc-gen-a2a docs: ${join(dir, "pipe.yaml")}: a FIFO, not a regular file; ` +
        "an OpenAPI document here is a file of at most 16777216 bytes\n",
    );
  });

  it("bad usage: exit 2 with the usage", () => {
    expect(runDocsCommand([], tempDir("docs-cmd"))).toBe(2);
    expect(err.join("")).toMatch(/^protoc-gen-a2a docs: expected at least one OpenAPI document\nUsage: /);
    err.length = 0;
    expect(runDocsCommand(["a.yaml", "--colour"], tempDir("docs-cmd"))).toBe(2);
    expect(err.join("")).toMatch(/^protoc-gen-a2a docs: .*--colour/);
  });
});

describe("the names in the site", () => {
  it("come from the paths below the shared folder; a single document keeps its name", () => {
    const docs = siteDocuments(["/p/gen/v0.3.0/a2a_openapi.yaml", "/p/gen/v1.0.1/a2a_openapi.yaml"]);
    expect(docs.map((d) => [d.page, d.apiFile])).toEqual([
      ["v0.3.0-a2a_openapi.html", "v0.3.0-a2a_openapi.yaml"],
      ["v1.0.1-a2a_openapi.html", "v1.0.1-a2a_openapi.yaml"],
    ]);
    expect(siteDocuments(["/p/api.json"]).map((d) => [d.page, d.apiFile])).toEqual([["api.html", "api.json"]]);
    expect(siteDocuments(["/p/index.yaml"])[0]!.page).toBe("index-openapi.html");
  });

  it("two documents that would share a page, or one given twice, are refused", () => {
    expect(() => siteDocuments(["/p/a.yaml", "/p/a.json"])).toThrow(
      "/p/a.json: its page would be a.html, as /p/a.yaml's; rename one",
    );
    expect(() => siteDocuments(["/p/a.yaml", "/p/a.yaml"])).toThrow("/p/a.yaml: given twice");
  });
});
