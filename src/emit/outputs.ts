/**
 * Writes every output of a run: per target, the route table module, the stubs
 * and the cross-version module; then, once whatever the target, the JSON and
 * Markdown files, the sources page last. Everything here reads the resolved model only
 * (src/model/resolve-api.ts): its defaults are applied, none is applied here.
 */
import { posix } from "node:path";
import type { A2aOptions } from "../options.js";
import type { ResolvedApi } from "../model/resolve-api.js";
import type { CompatPlan } from "../compat/compat-plan.js";
import type { VersionLink } from "../compat/version-links.js";
import { emitRoutesModule, routesJson } from "./modules/routes-module.js";
import { emitStubs } from "./modules/stubs.js";
import type { OutputFiles } from "../host/output-files.js";
import { emitCompatModule } from "./conversions/compat-module.js";
import { definitionName } from "./print/names.js";
import { docRenderer } from "./docs/docs.js";
import {
  compatView,
  errorsView,
  operationsView,
  overridesView,
  routesView,
  sourcesView,
  versionsView,
} from "./docs/docs-view.js";
import type { TemplateName } from "./docs/template-options.js";
import { sourceTable } from "./docs/sources.js";
import { printTree } from "./print/doc-tree.js";
import type { ConversionIr } from "../compat/conversion-ir.js";
import type { DialectIr } from "../compat/dialect-ir.js";
import type { JsonIr } from "../compat/json-ir.js";

/** What the cross-version outputs are printed from, all derived in src/compat before anything is written. */
export interface ConversionInputs {
  readonly conversions: ReadonlyMap<CompatPlan, ConversionIr>;
  readonly dialects: ReadonlyMap<string, DialectIr>;
  readonly json: ReadonlyMap<CompatPlan, JsonIr>;
}
import { openApiDocument } from "./openapi/openapi.js";
import { openRpcDocument } from "./openrpc/openrpc.js";

/** Written once per run with the docs: every source tag the pages cite, with links to the pinned files. */
export const SOURCES_PAGE = "a2a_sources.md";

export function writeOutputs(
  out: OutputFiles,
  options: A2aOptions,
  models: readonly ResolvedApi[],
  plans: readonly CompatPlan[],
  links: readonly VersionLink<ResolvedApi>[],
  /**
   * Each plan's conversion IR; the a2a.json dialect's rules of each package that has one; each plan's direct
   * a2a.json conversions when its older version has a dialect.
   */
  ir: ConversionInputs,
): void {
  for (const target of out.targets) {
    const files = out.modules(target);
    for (const m of models) {
      // Stubs import the route table, so they bring it along.
      if (options.emit.has("routes") || options.emit.has("stubs")) emitRoutesModule(files, baseName(m, models), m);
      if (options.emit.has("stubs")) emitStubs(files, baseName(m, models), m, ir.dialects.get(m.package));
    }
    if (options.emit.has("stubs")) {
      for (const { plan, newer, older, operations } of links) {
        const jsonIr = ir.json.get(plan);
        const rules = ir.dialects.get(older.package);
        const direct = rules && jsonIr ? { rules, json: jsonIr } : undefined;
        const side = (m: ResolvedApi) => ({
          file: m.protoFile,
          definition: definitionName(m.service.name, m.protocolVersion),
          protocolVersion: m.protocolVersion,
        });
        emitCompatModule(files, plan, side(newer), side(older), operations, ir.conversions.get(plan)!, direct);
      }
    }
  }
  // Markdown and JSON do not depend on the target: written once, whatever it is.
  const renderDoc = docRenderer();
  const text = (name: string, content: string) => out.text(name, content);
  // Each page links the sources page, which explains the source tags its cells cite.
  const doc = (name: string, template: TemplateName, view: object) =>
    text(name, renderDoc(template, { ...view, sourcesPage: posix.relative(posix.dirname(name), SOURCES_PAGE) }));
  const upstream = options.emit.has("openapi") || options.emit.has("openrpc") ? sourceTable().upstream : [];
  for (const m of models) {
    const base = baseName(m, models);
    if (options.emit.has("routes")) text(`${base}_routes.json`, routesJson(m));
    if (options.emit.has("openapi"))
      text(`${base}_openapi.${options.openApiFormat}`, printTree(openApiDocument(m, upstream), options.openApiFormat));
    if (options.emit.has("openrpc")) {
      const document = openRpcDocument(m, upstream, ir.dialects.get(m.package));
      text(`${base}_openrpc.json`, printTree(document, "json"));
    }
    if (options.emit.has("docs")) {
      doc(`${base}_operations.md`, "operations", operationsView(m));
      doc(`${base}_routes.md`, "routes", routesView(m));
      doc(`${base}_errors.md`, "errors", errorsView(m));
      doc(`${base}_overrides.md`, "overrides", overridesView(m));
    }
  }
  if (!options.emit.has("docs")) return;
  for (const plan of plans) doc("a2a_compat.md", "compat", compatView(plan));
  if (models.length > 1) doc("a2a_versions.md", "versions", versionsView(models));
  text(SOURCES_PAGE, renderDoc("sources", sourcesView(sourceTable())));
}

/** `dir/a2a.proto` → `dir/a2a`; a file with several services gets one set of outputs per service. */
function baseName(m: ResolvedApi, models: readonly ResolvedApi[]): string {
  const base = m.protoFile.replace(/\.proto$/, "");
  return models.some((o) => o !== m && o.protoFile === m.protoFile) ? `${base}_${m.service.name}` : base;
}
