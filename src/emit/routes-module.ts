/**
 * Writes a route table as `<base>_routes.json` and as a module for the
 * requested target: `.ts` (literal types, checked against Route), `.js`, or
 * `.d.ts`. The module exports `<Service>Routes` (the proto's bindings),
 * `<Service>RouteAliases` (routes servers also accept, from overrides) and
 * `<Service>RouteOverlaps`.
 */
import type { GeneratedFile, Schema } from "@bufbuild/protoplugin";
import type { ApiModel } from "../model/model-types.js";
import type { RouteTable } from "./route-table.js";
import { printLiteral } from "./literal.js";
import { printPreamble } from "./preamble.js";

export const runtimeModule = "@protoc-gen-a2a/runtime";

export function routesJson(model: ApiModel, table: RouteTable): string {
  const doc = {
    $schema: "https://protoc-gen-a2a.dev/schemas/routes.schema.json",
    protoFile: model.protoFile,
    package: model.package,
    service: model.service.fullName,
    protocolVersion: model.protocolVersion ?? null,
    release: model.release ?? null,
    matchRule:
      "Segments are compared left to right; a literal beats *, and * beats **. The route with the lowest priority that matches wins.",
    routes: table.routes,
    aliases: table.aliases,
    overlaps: table.overlaps,
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

export function emitRoutesModule(
  schema: Schema<object>,
  target: "ts" | "js" | "dts",
  base: string,
  model: ApiModel,
  table: RouteTable,
): void {
  const ext = target === "dts" ? ".d.ts" : "." + target;
  const f: GeneratedFile = schema.generateFile(`${base}_routes${ext}`);
  printPreamble(f, schema, model.protoFile);
  f.print(`// HTTP bindings of ${model.service.fullName}, ordered by match priority.`);
  f.print();
  const name = model.service.name;
  const routeType = f.import("Route", runtimeModule, true);
  const overlapType = f.import("RouteOverlap", runtimeModule, true);
  const data = (v: unknown) => printLiteral(v);
  if (target === "dts") {
    f.print(f.export("declare const", `${name}Routes`), `: readonly `, routeType, `[];`);
    f.print(f.export("declare const", `${name}RouteAliases`), `: readonly `, routeType, `[];`);
    f.print(f.export("declare const", `${name}RouteOverlaps`), `: readonly `, overlapType, `[];`);
    return;
  }
  if (target === "ts") {
    f.print(
      f.export("const", `${name}Routes`),
      ` = ${data(table.routes)} as const satisfies readonly `,
      routeType,
      `[];`,
    );
    f.print();
    f.print(
      f.export("const", `${name}RouteAliases`),
      ` = ${data(table.aliases)} as const satisfies readonly `,
      routeType,
      `[];`,
    );
    f.print();
    f.print(f.export("const", `${name}RouteOverlaps`), `: readonly `, overlapType, `[] = ${data(table.overlaps)};`);
    return;
  }
  f.print(f.export("const", `${name}Routes`), ` = ${data(table.routes)};`);
  f.print();
  f.print(f.export("const", `${name}RouteAliases`), ` = ${data(table.aliases)};`);
  f.print();
  f.print(f.export("const", `${name}RouteOverlaps`), ` = ${data(table.overlaps)};`);
}
