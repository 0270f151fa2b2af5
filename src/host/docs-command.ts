/**
 * `protoc-gen-a2a docs <openapi-document>... [--out <dir>]`: renders a user's own OpenAPI documents (those
 * written with emit=openapi) into a static site with Redoc (docs-site.ts).
 *
 * Rule: names in the site come from each document's path relative to the folder the documents share, its
 * folders joined with "-": gen/v1.0.1/a2a_openapi.yaml and gen/v0.3.0/a2a_openapi.yaml give the pages
 * v1.0.1-a2a_openapi.html and v0.3.0-a2a_openapi.html, beside copies of the documents under the same names;
 * a page that would be called index.html is called index-openapi.html. A document named *_openapi.{yaml,json}
 * brings the *_openrpc.json beside it, when there is one. One line on stdout per page and one for the index
 * when done; one line on stderr and exit code 1 on a DocsError (Redocly CLI missing, a document that is not
 * one), 2 on bad usage.
 */
import { existsSync } from "node:fs";
import { basename, dirname, extname, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { buildSite, DocsError, findRedocly, type SiteDocument } from "./docs-site.js";

export const docsUsage =
  "Usage: protoc-gen-a2a docs <openapi-document>... [--out <dir>]\n" +
  "  Renders each OpenAPI document (YAML or JSON, as written with emit=openapi) into a static HTML page with\n" +
  "  Redoc, whose script the page holds, so it opens without network. Beside each page: a copy of the\n" +
  "  document, and of its OpenRPC document (<name>_openrpc.json next to <name>_openapi.yaml) when there is\n" +
  "  one; <dir>/index.html links them all. <dir> defaults to docs-site; its other files are left alone.\n" +
  "  Needs Redocly CLI installed beside protoc-gen-a2a (npm install --save-dev @redocly/cli); nothing is\n" +
  "  downloaded.\n";

const redoclyMissing =
  "Redocly CLI (@redocly/cli) is not installed here; it renders the pages. Install it beside protoc-gen-a2a " +
  "(npm install --save-dev @redocly/cli) and run this again; nothing is downloaded at run time.";

/** Runs the subcommand with the arguments after `docs`; resolves to the exit code. */
export function runDocsCommand(args: readonly string[], cwd = process.cwd()): number {
  let parsed: { values: { out?: string | undefined; help?: boolean | undefined }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { out: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (parsed.values.help) {
    process.stdout.write(docsUsage);
    return 0;
  }
  if (parsed.positionals.length === 0) return usageError("expected at least one OpenAPI document");
  try {
    const redocly = findRedocly(cwd);
    if (redocly === undefined) throw new DocsError(redoclyMissing);
    const site = buildSite({
      out: resolve(cwd, parsed.values.out ?? "docs-site"),
      documents: siteDocuments(parsed.positionals.map((p) => resolve(cwd, p))),
      title: "API documents (protoc-gen-a2a)",
      heading: "API documents",
      intro: "Rendered with Redoc by protoc-gen-a2a docs.",
      redocly,
    });
    for (const p of site.pages) process.stdout.write(`${p.pagePath}  (${p.operationIds.length} operations)\n`);
    process.stdout.write(`${site.index}\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof DocsError)) throw e;
    process.stderr.write(`protoc-gen-a2a docs: ${e.message}\n`);
    return 1;
  }
}

function usageError(why: string): number {
  process.stderr.write(`protoc-gen-a2a docs: ${why}\n${docsUsage}`);
  return 2;
}

/** The site's names for each document (see the rule above); a document given twice is an error. */
export function siteDocuments(files: readonly string[]): SiteDocument[] {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f)) throw new DocsError(`${f}: given twice`);
    seen.add(f);
  }
  const common = commonFolder(files);
  const pages = new Map<string, string>();
  return files.map((openapi) => {
    const ext = extname(openapi);
    let stem = relative(common, openapi)
      .slice(0, -ext.length || undefined)
      .split(sep)
      .join("-");
    if (stem === "index") stem = "index-openapi";
    const other = pages.get(stem);
    if (other !== undefined)
      throw new DocsError(`${openapi}: its page would be ${stem}.html, as ${other}'s; rename one`);
    pages.set(stem, openapi);
    const rpc = /_openapi\.(ya?ml|json)$/.test(basename(openapi))
      ? openapi.replace(/_openapi\.(ya?ml|json)$/, "_openrpc.json")
      : undefined;
    const openrpc = rpc !== undefined && existsSync(rpc) ? rpc : undefined;
    return {
      openapi,
      openrpc,
      page: `${stem}.html`,
      apiFile: `${stem}${ext}`,
      rpcFile: openrpc ? `${stem.replace(/_openapi$/, "_openrpc")}.json` : undefined,
    };
  });
}

/** The deepest folder that holds every file. */
function commonFolder(files: readonly string[]): string {
  let common = dirname(files[0]!);
  while (!files.every((f) => f.startsWith(common.endsWith(sep) ? common : common + sep))) common = dirname(common);
  return common;
}
