/**
 * `npm run docs`: the site scripts/docs/build.js renders (Redoc via Redocly CLI build-docs), built in-process
 * into a temporary folder and opened in headless Chromium (Debian's package, driven by puppeteer-core) with
 * every request off the machine refused. For each version's page: Redoc's script runs without errors, the page
 * asks the network for nothing but Redoc's own badge logo (which Redoc drops when it does not load), and every
 * operation of the OpenAPI document is rendered: Redoc 3 links each as `#/<tag>/<operationid>` (lower case),
 * and shows its method and path template. The index links each page and both documents of its version.
 *
 * Without a Chromium binary (no npm package ships one that runs offline) the file says so in one line and is
 * skipped; with CI=true a missing Chromium fails it instead, since .ci/run installs Debian's package.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "puppeteer-core";
import { parse as parseYaml } from "yaml";
import { buildDocs, type BuiltSite } from "../../scripts/docs/build.js";
import { inspectPage, launchChromium, pageLinks, type PageReport } from "../../scripts/docs/chromium.js";
import { isObject, object } from "../helpers/doc-schemas.js";
import { tempDir } from "../helpers/run.js";
import { missingChromium } from "../helpers/chromium-available.js";

/** The one off-machine URL a page may ask for: the "API docs by" badge's logo, which Redoc hides on error. */
const REDOC_BADGE_LOGO = "https://cdn.redoc.ly/redoc/logo-mini-full.svg";
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

const skipReason = missingChromium("test/docs/docs-html.test.ts");

let site: BuiltSite;
let browser: Browser;
const reports = new Map<string, PageReport>();

beforeAll(async () => {
  if (skipReason !== undefined) return;
  site = buildDocs(join(tempDir("docs-site"), "site"));
  browser = await launchChromium();
  for (const v of site.versions) {
    const shows = operationsOf(v.openapi).map(methodAndPath);
    reports.set(v.version, await inspectPage(browser, v.pagePath, { operations: v.operationIds.length, shows }));
  }
  // Each page may take up to inspectPage's LOAD_MS (150 s) on a loaded machine.
}, 420_000);
afterAll(() => browser?.close());

/** The operations of an OpenAPI document: operationId, first tag, method and path template. */
function operationsOf(file: string) {
  const doc = object(parseYaml(readFileSync(file, "utf8")), file);
  return Object.entries(object(doc["paths"], "paths")).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = object(item, path)[method];
      if (!isObject(op)) return [];
      const tags = Array.isArray(op["tags"]) ? op["tags"] : [];
      return [{ id: String(op["operationId"]), tag: String(tags[0]), method: method.toUpperCase(), path }];
    }),
  );
}

/** How Redoc shows an operation's method and path template, one above the other. */
const methodAndPath = (o: { method: string; path: string }) => `${o.method}\n${o.path}\n`;

describe.skipIf(skipReason !== undefined)("npm run docs", () => {
  it("renders one page per version of generated-samples/ with an OpenAPI document", () => {
    expect(site.versions.map((v) => v.version)).toEqual(["v0.3.0", "v1.0.1"]);
    for (const v of site.versions) expect(existsSync(v.pagePath), v.pagePath).toBe(true);
  });

  describe.each(["v0.3.0", "v1.0.1"])("the %s page in headless Chromium", (version) => {
    const report = () => reports.get(version)!;
    const built = () => site.versions.find((v) => v.version === version)!;

    it("runs Redoc without errors and asks the network for nothing but the badge logo", () => {
      expect(report().external.filter((url) => url !== REDOC_BADGE_LOGO)).toEqual([]);
      expect(report().errors.filter((e) => e.url !== REDOC_BADGE_LOGO)).toEqual([]);
    });

    it("lists every operation of the document, and no other", () => {
      const operations = operationsOf(built().openapi);
      expect(operations.length).toBe(built().operationIds.length);
      const expected = operations.map((o) => `#/${o.tag.toLowerCase()}/${o.id.toLowerCase()}`).sort();
      const rendered = report().links.filter((l) => l.split("/").length === 3);
      expect([...new Set(rendered)].sort()).toEqual(expected);
    });

    it("shows the method and path template of every operation", () => {
      const missing = operationsOf(built().openapi).filter((o) => !report().text.includes(methodAndPath(o)));
      expect(missing).toEqual([]);
    });
  });

  it("the index links each version's page and its OpenAPI and OpenRPC documents, all present", async () => {
    const index = await pageLinks(browser, site.index);
    expect(index.title).toBe("A2A API documents (protoc-gen-a2a)");
    const hrefs = index.links.map((l) => l.href ?? "");
    for (const v of site.versions) {
      expect(hrefs).toEqual(expect.arrayContaining([v.page, v.apiFile, v.rpcFile]));
      expect(index.links.find((l) => l.href === v.page)?.text).toBe(v.title);
    }
    for (const href of hrefs.filter((h) => !h.includes(":"))) expect(existsSync(join(site.out, href)), href).toBe(true);
  });
});
