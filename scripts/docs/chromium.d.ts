// Types of scripts/docs/chromium.js, for the TypeScript test that imports it.
import type { Browser } from "puppeteer-core";

export interface PageReport {
  /** The requests for URLs off the machine, aborted. */
  readonly external: readonly string[];
  /** Script errors and console errors, each with the URL it names ("" when none). */
  readonly errors: readonly { readonly text: string; readonly url: string }[];
  /** The in-page links (`#/…`) the page rendered. */
  readonly links: readonly string[];
  /** The text of the page at each scroll step, joined. */
  readonly text: string;
}

export interface InspectOptions {
  readonly width?: number;
  readonly height?: number;
  /** Write the viewport to this PNG file. */
  readonly screenshot?: string;
  /** Before the screenshot, click the sidebar entry with this text. */
  readonly open?: string;
  /** Wait (within the load timeout) until this many operation links (`#/<tag>/<operationid>`) were rendered. */
  readonly operations?: number;
  /** Wait (within the load timeout) until the page's text showed each of these strings. */
  readonly shows?: readonly string[];
}

export function chromiumPath(): string;
export function launchChromium(): Promise<Browser>;
export function inspectPage(browser: Browser, file: string, options?: InspectOptions): Promise<PageReport>;
export function pageLinks(
  browser: Browser,
  file: string,
): Promise<{ title: string; links: { href: string | null; text: string | null }[] }>;
