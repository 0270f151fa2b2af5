/**
 * Renders the Markdown tables with the handlebars templates in templates/.
 * Templates are compiled once per process; cells are escaped for Markdown
 * tables (a "|" would end a cell) and never HTML-escaped.
 */
import { readFileSync } from "node:fs";
import Handlebars from "handlebars";

/** Same relative place from src/emit and dist/emit. */
const templateDir = new URL("../../templates/", import.meta.url);
const cache = new Map<string, HandlebarsTemplateDelegate>();
const hb = Handlebars.create();

export type TemplateName = "operations" | "routes" | "errors" | "overrides" | "versions";

export function renderDoc(name: TemplateName, view: unknown): string {
  let t = cache.get(name);
  if (!t) {
    const source = readFileSync(new URL(`${name}.md.hbs`, templateDir), "utf8");
    t = hb.compile(source, { noEscape: true, strict: true, knownHelpersOnly: true, knownHelpers: { if: true, each: true, unless: true } });
    cache.set(name, t);
  }
  return t(escapeCells(view)).replace(/\n{3,}/g, "\n\n");
}

/** Escapes "|" and line breaks in every string of a view. */
function escapeCells(v: unknown): unknown {
  if (typeof v === "string") return v.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  if (Array.isArray(v)) return v.map(escapeCells);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, escapeCells(x)]));
  }
  return v;
}
