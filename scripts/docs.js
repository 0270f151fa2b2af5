// `npm run docs [-- --out DIR] [-- --screenshot]`: builds, then renders the OpenAPI documents of
// generated-samples/ into static HTML with Redoc (scripts/docs/build.js), into docs-site/ (git-ignored) unless
// --out says otherwise, and prints the pages. With --screenshot, also opens the v1.0.1 page in headless Chromium
// (scripts/docs/chromium.js) and writes docs/openapi-v1.0.1.png, the README's picture.
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildDocs, repoRoot } from "./docs/build.js";

const { values } = parseArgs({ options: { out: { type: "string" }, screenshot: { type: "boolean" } } });
// npm runs scripts from the package's folder; INIT_CWD is the one `npm run docs` was typed in.
const site = buildDocs(values.out ? resolve(process.env.INIT_CWD ?? process.cwd(), values.out) : undefined);
for (const v of site.versions) console.log(`${v.pagePath}  (${v.operationIds.length} operations)`);
console.log(site.index);

if (values.screenshot) {
  const { inspectPage, launchChromium } = await import("./docs/chromium.js");
  const v = site.versions.find((x) => x.version === "v1.0.1");
  if (!v) throw new Error("docs: no v1.0.1 page to take a screenshot of");
  const browser = await launchChromium();
  try {
    const png = join(repoRoot, "docs/openapi-v1.0.1.png");
    await inspectPage(browser, v.pagePath, { width: 1280, height: 800, screenshot: png, open: "SendMessage" });
    console.log(png);
  } finally {
    await browser.close();
  }
}
