/**
 * Renders the Markdown tables from the handlebars templates in templates/,
 * precompiled at build time (scripts/build-assets.js), so a run loads only
 * the handlebars runtime. Cells are escaped for Markdown tables (a "|" would
 * end a cell) and never HTML-escaped.
 */
import { createRequire } from "node:module";
import { loadGeneratedModule } from "../../assets.js";
import type { TemplateName } from "./template-options.js";

type Render = (view: unknown) => string;

let templates: Record<TemplateName, unknown> | undefined;
/** The precompiled Handlebars template (scripts/build-assets.js). */
function templateSpec(name: TemplateName): unknown {
  templates ??= loadGeneratedModule<Record<TemplateName, unknown>>("templates.cjs");
  return templates[name];
}
interface HandlebarsRuntime {
  create(): { template(spec: unknown): Render };
}
const runtime = createRequire(import.meta.url)("handlebars/runtime") as HandlebarsRuntime;
const hb = runtime.create();
const cache = new Map<TemplateName, Render>();

export function renderDoc(name: TemplateName, view: unknown): string {
  let t = cache.get(name);
  if (!t) {
    t = hb.template(templateSpec(name));
    cache.set(name, t);
  }
  return t(escapeCells(view)).replace(/\n{3,}/g, "\n\n");
}

/** Escapes "|" and line breaks in every string of a view. */
function escapeCells(v: unknown): unknown {
  if (typeof v === "string")
    return v.includes("|") || v.includes("\n") ? v.replace(/\|/g, "\\|").replace(/\r?\n/g, " ") : v;
  if (Array.isArray(v)) return v.map(escapeCells);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k in v) out[k] = escapeCells((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}
