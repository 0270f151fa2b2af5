/**
 * Every generated Markdown page compiles as MDX (@mdx-js/mdx, what Docusaurus 3
 * reads .md files with by default) and renders as CommonMark (commonmark.js).
 * The pages are the committed generated-samples/, which test/generate.test.ts
 * proves equal to the generator's output. Free text from the override files
 * goes through prose(), whose escaping is checked here on its own as well.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compile } from "@mdx-js/mdx";
import { HtmlRenderer, Parser, type Node } from "commonmark";
import { prose } from "../../src/emit/docs/docs-view.js";
import { readMarkdownPages } from "../helpers/samples.js";

const pages = readMarkdownPages();

/** undefined when the text compiles as MDX, else "page:line:column: reason" (MDX reports its first error only). */
async function mdxProblem(page: string, text: string): Promise<string | undefined> {
  try {
    await compile(text);
    return undefined;
  } catch (e) {
    const m = e as { line?: number; column?: number; reason?: string; message?: string };
    return `${page}:${m.line ?? "?"}:${m.column ?? "?"}: ${m.reason ?? m.message ?? String(e)}`;
  }
}

/** Every node of a CommonMark document, with the page line it starts on. */
function nodes(text: string): { node: Node; line: number }[] {
  const out: { node: Node; line: number }[] = [];
  const walker = new Parser().parse(text).walker();
  let line = 0;
  for (let step = walker.next(); step; step = walker.next()) {
    if (!step.entering) continue;
    line = step.node.sourcepos?.[0]?.[0] ?? line;
    out.push({ node: step.node, line });
  }
  return out;
}

describe("generated Markdown pages", () => {
  it("are all found", () => {
    const some = ["a2a_sources.md", "v0.3.0/a2a_errors.md", "v1.0.1/a2a_routes.md"];
    expect([...pages.keys()]).toEqual(expect.arrayContaining(some));
    expect(pages.size).toBeGreaterThanOrEqual(11);
  });

  it.each([...pages.keys()])("%s compiles with @mdx-js/mdx", async (page) => {
    expect(await mdxProblem(page, pages.get(page)!)).toBeUndefined();
  });

  it.each([...pages.keys()])("%s renders as CommonMark: no raw HTML but <br />, nothing escaped twice", (page) => {
    const text = pages.get(page)!;
    const html = new HtmlRenderer().render(new Parser().parse(text));
    expect(html).toContain(`<h1>`);
    const bad = nodes(text).filter(({ node }) => {
      if (node.type === "html_block") return true;
      if (node.type === "html_inline") return node.literal !== "<br />";
      // A backslash before punctuation in rendered text means the source escaped an escape.
      return node.type === "text" && /\\[!-/:-@[-`{-~]/.test(node.literal ?? "");
    });
    expect(bad.map(({ node, line }) => `${page}:${line}: ${node.type} ${JSON.stringify(node.literal)}`)).toEqual([]);
  });
});

describe("prose()", () => {
  const text = (markdown: string) =>
    nodes(markdown)
      .filter(({ node }) => node.type === "text" || node.type === "code")
      .map(({ node }) => (node.type === "code" ? "`" + node.literal + "`" : node.literal))
      .join("");

  it("keeps code spans and escapes the rest", async () => {
    const s = "POST /{tenant}/tasks/{id=*}:subscribe, `{id=*}` and <T> or *x* or _y_ or task_id \\ {value: …}";
    const out = prose(s);
    expect(out).toContain("`{id=*}`");
    expect(out).toContain("task_id");
    expect(await mdxProblem("prose", out)).toBeUndefined();
    expect(text(out)).toBe(s);
  });

  it("makes any inline text MDX-safe and renders it unchanged in CommonMark", async () => {
    const chars = fc.constantFrom(..."{}<>*_\\`~#|=:/. -aZ09".split(""));
    await fc.assert(
      fc.asyncProperty(
        fc.array(chars, { maxLength: 40 }).map((a) => a.join("")),
        async (raw) => {
          const s = `x ${raw.replaceAll("`", "")} x`;
          const out = prose(s);
          expect(await mdxProblem("prose", out)).toBeUndefined();
          expect(text(out)).toBe(s);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("joins the routes of a cell with a break both MDX and CommonMark accept", async () => {
    const cell = "| `GET /a/{id}`<br />`GET /{tenant}/a/{id}` |\n|---|\n";
    expect(await mdxProblem("cell", `| Route |\n|---|\n${cell}`)).toBeUndefined();
    const html = nodes(cell).filter(({ node }) => node.type === "html_inline");
    expect(html.map(({ node }) => node.literal)).toEqual(["<br />"]);
  });
});
