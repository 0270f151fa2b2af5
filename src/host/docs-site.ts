/**
 * Renders OpenAPI documents into a static site with Redoc, through Redocly CLI's `build-docs`: one page per
 * document, with Redoc's script inlined (--inlineBundle) so that the page loads nothing from the network;
 * beside each page a copy of its document and of its OpenRPC document when it has one; and index.html, a list
 * of the documents linking all three. Used by `protoc-gen-a2a docs` (docs-command.ts) and `npm run docs`.
 *
 * Rule: Redocly CLI (@redocly/cli) is not a dependency of this package (it is large, and only this command
 * needs it): it is found installed, from the working directory's project first, then from this package's
 * own location; it is never downloaded. Each document is read as other inputs are (a regular file of at most
 * maxDocumentBytes) and must be an OpenAPI document (an `openapi` version and info.title). The site's files are
 * written into `out`, which is created when missing; nothing else in it is touched. Failures are DocsErrors,
 * one line naming the file (Redocly's own output follows on the next lines when it fails).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { describeMakeRefusal, makeDirectory } from "../make-directory.js";
import { describeRefusal, readBounded } from "../read-bounded.js";

export class DocsError extends Error {
  override name = "DocsError";
}

/** An OpenAPI document of the A2A surface is about 100 KB; this bounds what one page reads. */
export const maxDocumentBytes = 16 * 1024 * 1024;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface SiteDocument {
  /** The OpenAPI document (YAML or JSON). */
  readonly openapi: string;
  /** An OpenRPC document to copy beside it and link, if any. */
  readonly openrpc?: string | undefined;
  /** File names in the site: the page, and the copies of the two documents. */
  readonly page: string;
  readonly apiFile: string;
  readonly rpcFile?: string | undefined;
}

export interface BuiltPage extends SiteDocument {
  /** info.title of the document. */
  readonly title: string;
  /** The operationIds of its paths, in document order. */
  readonly operationIds: readonly string[];
  /** The page's absolute path. */
  readonly pagePath: string;
}

export interface SiteOptions {
  readonly out: string;
  readonly documents: readonly SiteDocument[];
  /** The index page's title, its heading and its first paragraph. */
  readonly title: string;
  readonly heading: string;
  readonly intro: string;
  /** Redocly CLI's bin script (findRedocly). */
  readonly redocly: string;
}

/** The bin script of the installed Redocly CLI, looked up from `cwd`'s project, then from this package. */
export function findRedocly(cwd: string): string | undefined {
  for (const from of [join(cwd, "package.json"), import.meta.url]) {
    for (const dir of createRequire(from).resolve.paths("@redocly/cli") ?? []) {
      const pkgFile = join(dir, "@redocly/cli/package.json");
      if (!existsSync(pkgFile)) continue;
      const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { bin?: string | Record<string, string> };
      const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.["redocly"];
      if (bin) return join(dirname(pkgFile), bin);
    }
  }
  return undefined;
}

/** Reads an OpenAPI document's title and operationIds; a DocsError names the file when it is not one. */
export function readOpenApi(file: string): { title: string; operationIds: string[] } {
  const read = readBounded(file, maxDocumentBytes);
  if (!read.ok) {
    const rule = read.kind === "io" ? "" : `; an OpenAPI document here is a file of at most ${maxDocumentBytes} bytes`;
    throw new DocsError(`${file}: ${describeRefusal(read, maxDocumentBytes)}${rule}`);
  }
  const yaml = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  let doc: { openapi?: unknown; info?: { title?: unknown }; paths?: Record<string, Record<string, unknown>> };
  try {
    doc = yaml.parse(read.data.toString("utf8"), { prettyErrors: false }) as typeof doc;
  } catch (e) {
    throw new DocsError(`${file}: not YAML or JSON (${(e as { code?: string }).code ?? (e as Error).message})`);
  }
  if (typeof doc?.openapi !== "string" || typeof doc.info?.title !== "string") {
    throw new DocsError(`${file}: not an OpenAPI document (it needs an "openapi" version and info.title)`);
  }
  const operationIds = Object.values(doc.paths ?? {}).flatMap((item) =>
    METHODS.flatMap((m) => {
      const id = (item?.[m] as { operationId?: unknown } | undefined)?.operationId;
      return typeof id === "string" ? [id] : [];
    }),
  );
  return { title: doc.info.title, operationIds };
}

/** Builds the site; returns the index's path and the pages. */
export function buildSite(opts: SiteOptions): { out: string; index: string; pages: BuiltPage[] } {
  const read = opts.documents.map((d) => ({ ...d, ...readOpenApi(d.openapi) })); // every document checked first
  const refused = makeDirectory(opts.out);
  if (refused) throw new DocsError(describeMakeRefusal(refused));
  const pages = read.map((d) => {
    const pagePath = join(opts.out, d.page);
    renderPage(opts.redocly, d.openapi, pagePath, d.title);
    copy(d.openapi, join(opts.out, d.apiFile));
    if (d.openrpc && d.rpcFile) copy(d.openrpc, join(opts.out, d.rpcFile));
    return { ...d, pagePath };
  });
  const index = join(opts.out, "index.html");
  writeFileSync(index, indexHtml(opts, pages));
  return { out: opts.out, index, pages };
}

/** Copies a document into the site, unless it is already there. */
function copy(from: string, to: string): void {
  if (resolve(from) !== resolve(to)) copyFileSync(from, to);
}

/** Renders one document with Redocly CLI; its telemetry and update notice are off. */
function renderPage(redocly: string, openapi: string, page: string, title: string): void {
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
  const args = [redocly, "build-docs", openapi, "--inlineBundle", "--output", page, "--title", title];
  const r = spawnSync(process.execPath, args, { env, encoding: "utf8", maxBuffer: 16 << 20 });
  if (r.status !== 0) {
    const output = `${r.stdout ?? ""}${r.stderr ?? ""}`.trimEnd();
    throw new DocsError(`${openapi}: Redocly CLI build-docs failed (exit ${r.status ?? r.signal})\n${output}`);
  }
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The index page: one list item per document, linking its page and its documents. */
function indexHtml(opts: SiteOptions, pages: readonly BuiltPage[]): string {
  const items = pages.map((p) => {
    const rpc = p.rpcFile ? ` · <a href="${escapeHtml(p.rpcFile)}">OpenRPC (JSON-RPC)</a>` : "";
    const kind = p.apiFile.endsWith(".json") ? "JSON" : "YAML";
    return (
      `    <li><a href="${escapeHtml(p.page)}">${escapeHtml(p.title)}</a>` +
      ` (${p.operationIds.length} operations) · <a href="${escapeHtml(p.apiFile)}">OpenAPI (${kind})</a>${rpc}</li>`
    );
  });
  return [
    "<!doctype html>",
    '<html lang="en">',
    `<head><meta charset="utf-8"><title>${escapeHtml(opts.title)}</title></head>`,
    "<body>",
    `  <h1>${escapeHtml(opts.heading)}</h1>`,
    `  <p>${escapeHtml(opts.intro)}</p>`,
    "  <ul>",
    ...items,
    "  </ul>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
