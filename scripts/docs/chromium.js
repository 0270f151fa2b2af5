// Opens a page of the docs site in headless Chromium (Debian's /usr/bin/chromium, or $CHROMIUM) through
// puppeteer-core, offline: every request that is not for a file:, data:, blob: or about: URL is aborted and
// recorded, so a page that needs the network shows it. Once Redoc's script has run (its search box is there),
// the page is scrolled through from top to bottom (Redoc renders sections as they come into view), and what
// it rendered is collected: the in-page links (Redoc 3 links each operation as `#/<tag>/<operationid>`, the
// operationId in lower case) and the text. Script errors and console errors are collected too. With
// `screenshot`, the page is scrolled back up, the sidebar entry named `open` is clicked (it expands the tag's
// operations in the sidebar and shows the tag), and the viewport is written as PNG.
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";

/** How long a page may take to load and render (a loaded machine is slow). */
const LOAD_MS = 60_000;
/** At most this many viewport-high scroll steps (the v1.0.1 page takes about 40). */
const MAX_STEPS = 400;
const LOCAL = /^(file|data|blob|about):/;

/** The Chromium binary: $CHROMIUM, else Debian's package. */
export function chromiumPath() {
  const path = process.env.CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(path)) throw new Error(`no Chromium at ${path} (apt-get install chromium, or set CHROMIUM)`);
  return path;
}

/** Starts Chromium headless; `--no-sandbox` because CI runs as root. */
export function launchChromium() {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Scrolls `page` through, collecting the in-page links and the text each step shows. */
async function scrollThrough(page) {
  const links = new Set();
  const texts = [];
  for (let step = 0; step < MAX_STEPS; step++) {
    const seen = await page.evaluate(() => {
      const hrefs = [...document.querySelectorAll('a[href^="#/"]')].map((a) => a.getAttribute("href"));
      const before = window.scrollY;
      window.scrollBy(0, window.innerHeight);
      // biome-ignore lint/performance/useDomNodeTextContent: the text as shown (laid out, scripts' output) is wanted
      return { hrefs, text: document.body.innerText, moved: window.scrollY !== before };
    });
    for (const h of seen.hrefs) links.add(h);
    texts.push(seen.text);
    if (!seen.moved) break;
    await pause(50);
  }
  return { links: [...links], text: texts.join("\n") };
}

/**
 * Loads `file` in a new page of `browser` (viewport `width`×`height`) and reports
 * { external, errors, links, text }; with `screenshot` (a PNG path), also writes the viewport there after
 * clicking the sidebar entry `open`.
 */
export async function inspectPage(browser, file, { width = 1280, height = 800, screenshot, open } = {}) {
  const page = await browser.newPage();
  const external = [];
  const errors = [];
  try {
    await page.setViewport({ width, height });
    await page.setRequestInterception(true);
    page.on("request", (r) => {
      if (LOCAL.test(r.url())) return void r.continue();
      external.push(r.url());
      void r.abort();
    });
    page.on("pageerror", (e) => errors.push({ text: String(e), url: "" }));
    page.on("console", (m) => m.type() === "error" && errors.push({ text: m.text(), url: m.location()?.url ?? "" }));
    await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: LOAD_MS });
    await page.waitForSelector('[data-testid="search-trigger"]', { timeout: LOAD_MS });
    const rendered = await scrollThrough(page);
    if (screenshot) {
      await page.evaluate(() => window.scrollTo(0, 0));
      const labels = await page.$$('[data-testid="menu-item-label"]');
      for (const label of labels) {
        if (open && (await label.evaluate((e) => e.textContent?.trim())) === open) await label.click();
      }
      await pause(500);
      await page.screenshot({ path: screenshot, type: "png" });
    }
    return { external, errors, ...rendered };
  } finally {
    await page.close();
  }
}

/** The links of a plain page (the site's index): each `a[href]` as written, with its text. */
export async function pageLinks(browser, file) {
  const page = await browser.newPage();
  try {
    await page.setRequestInterception(true);
    page.on("request", (r) => (LOCAL.test(r.url()) ? r.continue() : r.abort()));
    await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: LOAD_MS });
    const title = await page.title();
    const links = await page.$$eval("a[href]", (as) =>
      as.map((a) => ({ href: a.getAttribute("href"), text: a.textContent })),
    );
    return { title, links };
  } finally {
    await page.close();
  }
}
