/**
 * Writes a route table as `<base>_routes.json` and as a module for the
 * requested target: `.ts` (literal types, checked against Route), `.js`, or
 * `.d.ts`. The module exports `<Service>Routes` (the proto's bindings) and
 * `<Service>RouteAliases` (routes servers also accept, from overrides); the
 * query parameters they share are one `query` object the routes refer to.
 * The overlaps between routes are a report for people: they are in the JSON
 * file and the routes page, not in the module, which the runtime loads.
 */
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import type { Route, RouteQueryField } from "@protoc-gen-a2a/runtime/protocol";
import type { ResolvedApi } from "../../model/resolve-api.js";
import { inlineLiteral, printLiteral, type LiteralNames } from "../print/literal.js";
import type { ModuleFiles } from "../../host/output-files.js";
import { protocolModule } from "../print/runtime-entries.js";
import { targetPrinter } from "../print/target-printer.js";

export function routesJson(model: ResolvedApi): string {
  const table = model.routeTable;
  const doc = {
    $schema: "https://protoc-gen-a2a.dev/schemas/routes.schema.json",
    protoFile: model.protoFile,
    package: model.package,
    service: model.service.fullName,
    protocolVersion: model.protocolVersion,
    release: model.release,
    matchRule:
      "Segments are compared left to right; a literal beats *, and * beats **. " +
      "The route with the lowest priority that matches wins.",
    routes: table.routes,
    aliases: table.aliases,
    overlaps: table.overlaps,
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

export function emitRoutesModule(files: ModuleFiles, base: string, model: ResolvedApi): void {
  const table = model.routeTable;
  const comment = `HTTP bindings of ${model.service.fullName}, ordered by match priority.`;
  const f: GeneratedFile = files.open(`${base}_routes`, model.protoFile, comment);
  const out = targetPrinter(files.target);
  const name = model.service.name;
  const routeType: Printable = ["readonly ", f.import("Route", protocolModule, true), "[]"];
  const routes = (data: (v: unknown) => string) => {
    out.constant(f, { name: `${name}Routes`, type: routeType, value: data(table.routes), asConst: true });
    f.print();
    out.constant(f, { name: `${name}RouteAliases`, type: routeType, value: data(table.aliases), asConst: true });
  };
  out.module({
    declarations: () => routes(() => ""),
    values(typed) {
      const query = queryParameters([...table.routes, ...table.aliases]);
      if (query.members.length > 0) printQuery(f, typed, query.members);
      routes((v) => printLiteral(v, "", 120, 0, query.names));
    },
  });
}

/** `const query = { … }`: the query parameters the routes refer to. */
function printQuery(f: GeneratedFile, typed: boolean, members: [string, RouteQueryField][]): void {
  f.print(f.jsDoc("The query parameters of the routes below, by JSON name."));
  const value = printLiteral(Object.fromEntries(members));
  f.print(`const query = ${value}`, ...(typed ? [" as const satisfies Record<string, ", queryType(f), ">"] : []), ";");
  f.print();
}

const queryType = (f: GeneratedFile) => f.import("RouteQueryField", protocolModule, true);

/**
 * Every distinct query parameter of the routes, named by its JSON name (a second
 * parameter with the same JSON name and another type gets a number), and the
 * names by which the route literals refer to them (`query.contextId`).
 */
function queryParameters(routes: readonly Route[]): { members: [string, RouteQueryField][]; names: LiteralNames } {
  const members: [string, RouteQueryField][] = [];
  const names = new Map<string, string>();
  for (const q of routes.flatMap((r) => r.queryFields)) {
    const text = inlineLiteral(q);
    if (names.has(text)) continue;
    const taken = (n: string) => members.some(([m]) => m === n);
    let name = q.jsonName;
    for (let i = 2; taken(name) || !/^[A-Za-z_$][\w$]*$/.test(name); i++)
      name = `${q.jsonName.replace(/\W/g, "_")}${i}`;
    members.push([name, q]);
    names.set(text, `query.${name}`);
  }
  return { members, names };
}
