/**
 * Renders the Markdown tables from the handlebars templates in templates/,
 * precompiled at build time (scripts/build-assets.js), so a run loads only
 * the handlebars runtime (bundled into one file there too). Cells are escaped for Markdown tables (a "|" would
 * end a cell) and never HTML-escaped.
 */
import { loadGeneratedModule } from "../../assets.js";
import type { TemplateName } from "./template-options.js";

type Render = (view: unknown) => string;

interface HandlebarsRuntime {
  create(): { template(spec: unknown): Render };
}

/** Renders the documents of one run: its own Handlebars environment, each template made once, on first use. */
export type DocRenderer = (name: TemplateName, view: unknown) => string;

export function docRenderer(): DocRenderer {
  // Node's module cache loads the runtime and the precompiled templates (scripts/build-assets.js) once.
  const hb = loadGeneratedModule<HandlebarsRuntime>("handlebars-runtime.cjs").create();
  const made = new Map<TemplateName, Render>();
  return (name, view) => {
    let t = made.get(name);
    if (!t) {
      t = hb.template(loadGeneratedModule<Record<TemplateName, unknown>>("templates.cjs")[name]);
      made.set(name, t);
    }
    return t(escapeCells(view)).replace(/\n{3,}/g, "\n\n");
  };
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
