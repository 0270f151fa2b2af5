// Opens a page of the docs site in headless Chromium (Debian's /usr/bin/chromium, or $CHROMIUM) through
// puppeteer-core, offline: every request that is not for a file:, data:, blob: or about: URL is aborted and
// recorded, so a page that needs the network shows it. Once Redoc's script has run (its search box is there),
// the page is scrolled through from top to bottom (Redoc renders sections as they come into view) until it
// stops growing, and what it rendered is collected: the in-page links (Redoc 3 links each operation as
// `#/<tag>/<operationid>`, the operationId in lower case) and the text. Script errors and console errors are collected too. With
// `screenshot`, the page is scrolled back up, the sidebar entry named `open` is clicked (it expands the tag's
// operations in the sidebar and shows the tag), and the viewport is written as PNG.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";

/**
 * How long a page may take to load and render. A loaded machine is slow: in one CI run, with the suite's
 * other files busy beside it, the v1.0.1 page took over 60 s where it usually takes 6.
 */
const LOAD_MS = 150_000;
/** At most this many scroll steps and polls at the bottom (the v1.0.1 page takes about 40 steps). */
const MAX_STEPS = 1_000;
const LOCAL = /^(file|data|blob|about):/;

/** The Chromium binary: $CHROMIUM, else Debian's package. */
export function chromiumPath() {
  const path = process.env.CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(path)) throw new Error(`no Chromium at ${path} (apt-get install chromium, or set CHROMIUM)`);
  // Debian's /usr/bin/chromium is a script: it may stand while the browser under /usr/lib/chromium is gone.
  const runs = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (runs.status !== 0)
    throw new Error(`Chromium at ${path} does not run (${(runs.stderr || "").trim().split("\n").pop()})`);
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

/** How long the page must keep its height, at the bottom, before it counts as rendered. */
const SETTLE_MS = 1_000;
const POLL_MS = 100;

/** One scroll step: the links and text the page shows now, then a viewport further down. */
function step(page) {
  return page.evaluate(() => {
    const hrefs = [...document.querySelectorAll('a[href^="#/"]')].map((a) => a.getAttribute("href"));
    const before = window.scrollY;
    window.scrollBy(0, window.innerHeight);
    const height = document.documentElement.scrollHeight;
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown (laid out, scripts' output) is wanted
    return { hrefs, text: document.body.innerText, moved: window.scrollY !== before, height };
  });
}

/** The number of distinct operation links (`#/<tag>/<operationid>`) among `links`. */
const operationLinks = (links) => [...links].filter((l) => l.split("/").length === 3).length;

/**
 * Scrolls `page` through, collecting the in-page links and the text each step shows. The bottom counts only
 * once the page has kept its height for SETTLE_MS (Redoc renders sections as they come into view, and a
 * loaded machine renders them late), with `operations` once that many operation links were seen, and with
 * `shows` once the page's text held each of those strings (the sidebar links every operation before the
 * bottom sections are laid out). Settled at the bottom with some still unseen, it walks down again from the
 * top: Redoc renders a section only while it is in view, and a loaded machine can scroll past one before it
 * does (a CI run missed 14 of the v1.0.1 page's operations that way). The whole walk is bounded by LOAD_MS and
 * MAX_STEPS, so a page that never renders them all is reported as it stands.
 */
async function scrollThrough(page, operations = 0, shows = []) {
  const links = new Set();
  const texts = [];
  const unseen = new Set(shows);
  const deadline = Date.now() + LOAD_MS;
  let settled = { height: -1, since: Date.now() };
  for (let n = 0; n < MAX_STEPS && Date.now() < deadline; n++) {
    const seen = await step(page);
    for (const h of seen.hrefs) links.add(h);
    for (const s of unseen) if (seen.text.includes(s)) unseen.delete(s);
    texts.push(seen.text);
    const complete = operationLinks(links) >= operations && unseen.size === 0;
    if (seen.moved || seen.height !== settled.height) settled = { height: seen.height, since: Date.now() };
    else if (Date.now() - settled.since >= SETTLE_MS) {
      if (complete) break;
      // Settled at the bottom with sections unseen: walk down again from the top (see above).
      await page.evaluate(() => window.scrollTo(0, 0));
      settled = { height: -1, since: Date.now() };
    }
    await pause(seen.moved ? 50 : POLL_MS);
  }
  return { links: [...links], text: texts.join("\n") };
}

/**
 * Loads `file` in a new page of `browser` (viewport `width`×`height`) and reports
 * { external, errors, links, text }; with `operations` and `shows`, waits (within LOAD_MS) until that many
 * operation links were rendered and the text showed each string of `shows`; with `screenshot` (a PNG path), also writes the viewport there after clicking the sidebar entry
 * `open`.
 */
export async function inspectPage(browser, file, options = {}) {
  const { width = 1280, height = 800, screenshot, open, operations, shows } = options;
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
    const rendered = await scrollThrough(page, operations, shows);
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
