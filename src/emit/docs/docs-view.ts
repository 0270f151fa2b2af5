/**
 * ResolvedApi → the plain rows the Markdown templates print. Everything a
 * table shows is computed here, so templates only lay it out.
 */
import type { BindingModel, OperationModel } from "../../model/model-types.js";
import type { ResolvedApi, ResolvedOperation } from "../../model/resolve-api.js";
import { MAX_OVERLAPS_PER_ROUTE } from "../../model/route-table.js";
import { findVersionOverlaps } from "./version-overlaps.js";
import type { CompatPlan, PlanStep } from "../../compat/compat-plan.js";
import type { Route } from "@protoc-gen-a2a/runtime/protocol";
import type { SourceTable } from "./sources.js";

const code = (s: string) => "`" + s + "`";

/**
 * Free text from the override files or the model (a decision, a note, an
 * error message), made safe for CommonMark and MDX: outside its code spans,
 * "{", "}" and "<" (MDX reads them as expressions and JSX), "*", "\\" and a "_"
 * at a word's edge (emphasis) are backslash-escaped. Code spans stay as written.
 */
export function prose(s: string): string {
  return s
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[\\{}<*]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, "\\$&")))
    .join("");
}

/** Joins the routes of one table cell: a self-closing break, valid in CommonMark and in MDX (JSX). */
const lines = (items: readonly string[]) => items.join("<br />");

/**
 * The URL shape of a template, as the specification writes routes:
 * `{id=*}` → `{id}`; the "*" inside a resource-name variable such as
 * `{name=tasks/*}` become named placeholders (override
 * `resourcePlaceholders`, else `id`, `id2`, …).
 */
export function urlShape(b: Pick<BindingModel, "template">, op: Pick<OperationModel, "resourcePlaceholders">): string {
  let k = 0;
  const placeholder = () => {
    const name = op.resourcePlaceholders?.[k] ?? (k === 0 ? "id" : `id${k + 1}`);
    k++;
    return `{${name}}`;
  };
  const parts = b.template.segments.map((s) => {
    if (s.kind === "literal") return s.value;
    if (s.kind === "wildcard") return "*";
    if (s.kind === "deepWildcard") return "**";
    if (!s.explicit || (s.segments.length === 1 && s.segments[0]!.kind === "wildcard"))
      return `{${s.fieldPath.join(".")}}`;
    return s.segments
      .map((l) =>
        l.kind === "literal" ? l.value : l.kind === "wildcard" ? placeholder() : `{${s.fieldPath.join(".")}=**}`,
      )
      .join("/");
  });
  return "/" + parts.join("/") + (b.template.verb ? ":" + b.template.verb : "");
}

export function versionLabel(m: Pick<ResolvedApi, "release">): string {
  return `v${m.release}`;
}

function returns(m: ResolvedApi, op: ResolvedOperation): string {
  const name = m.messages.get(op.output)?.name ?? op.output;
  return op.serverStreaming ? `stream of ${code(name)}` : code(name);
}

function route(b: BindingModel, op: ResolvedOperation): string {
  const shape = urlShape(b, op);
  return shape === b.template.text
    ? code(`${b.method} ${shape}`)
    : `${code(`${b.method} ${shape}`)} (template ${code(b.template.text)})`;
}

export function operationsView(m: ResolvedApi) {
  return {
    title: `${m.service.name} ${versionLabel(m)}: operations across the three bindings`,
    protoFile: m.protoFile,
    package: m.package,
    service: m.service.fullName,
    protocolVersion: m.protocolVersion,
    rows: m.operations.map((op) => {
      const proto = op.bindings.filter((b) => b.origin !== "override");
      return {
        operation: op.canonicalName,
        jsonrpc: code(op.jsonrpcMethod),
        grpc: code(op.name),
        grpcPath: code(op.grpcPath),
        http: lines(proto.filter((b) => !b.tenantVariant).map((b) => route(b, op))) || "none",
        tenant: lines(proto.filter((b) => b.tenantVariant).map((b) => route(b, op))) || "none",
        returns: returns(m, op),
        streaming: op.serverStreaming ? "server stream" : "unary",
        request: code(m.messages.get(op.input)?.name ?? op.input),
      };
    }),
    extraRoutes: m.operations.flatMap((op) =>
      op.bindings
        .filter((b) => b.origin === "override")
        .map((b) => ({ operation: op.name, route: route(b, op), note: prose(b.note ?? "") })),
    ),
    specRoutes: m.operations
      .filter((op) => op.specRoute !== undefined)
      .map((op) => ({
        operation: op.name,
        spec: code(op.specRoute!),
        proto: lines(op.bindings.filter((b) => b.origin === "rule").map((b) => route(b, op))),
      })),
    absent: m.absentOperations.map((a) => ({ name: a.name, note: prose(a.note) })),
  };
}

export function routesView(m: ResolvedApi) {
  const table = m.routeTable;
  const byOp = new Map(m.operations.map((o) => [o.name, o]));
  const all = [...table.routes, ...table.aliases];
  const byPriority = new Map(all.map((r) => [r.priority, r]));
  return {
    title: `${m.service.name} ${versionLabel(m)}: HTTP+JSON routes`,
    protoFile: m.protoFile,
    count: table.routes.length,
    tenantCount: table.routes.filter((r) => r.tenantVariant).length,
    aliasCount: table.aliases.length,
    rows: [...all]
      .sort((a, b) => a.priority - b.priority)
      .map((r) => {
        const op = byOp.get(r.operation)!;
        const b = op.bindings.find((x) => x.template.text === r.template && x.method === r.method)!;
        return {
          priority: r.priority,
          method: r.method,
          template: code(r.template),
          shape: code(urlShape(b, op)),
          operation: r.operation,
          tenant: r.tenantVariant ? "yes" : "",
          origin:
            r.origin === "additional_binding"
              ? "additional binding"
              : r.origin === "override"
                ? "alias (override)"
                : r.origin,
          path: r.variables.map((v) => code(v.jsonName)).join(", ") || "–",
          body:
            r.body === null
              ? "–"
              : r.body === "*"
                ? `* (${r.bodyFields.map(code).join(", ") || "empty"})`
                : code(r.bodyFields[0]!),
          query: r.queryFields.map((q) => code(q.jsonName) + (q.repeated ? " (repeated)" : "")).join(", ") || "–",
          contentType: `${r.requestContentType ?? "–"} → ${r.responseContentType}`,
        };
      }),
    overlaps: table.overlaps.map((o) => {
      const loser = routeName(byPriority, o.loserPriority);
      return {
        example: code(`${o.method} ${o.example}`),
        winner: routeName(byPriority, o.winnerPriority),
        loser:
          o.winnersOfLoser > MAX_OVERLAPS_PER_ROUTE
            ? `${loser} (${o.winnersOfLoser} routes take paths from it; ${MAX_OVERLAPS_PER_ROUTE} shown)`
            : loser,
      };
    }),
  };
}

/** "#3 GetTask `/tasks/{id=*}`": a route of the table by its priority (overlaps name routes this way). */
function routeName(routes: ReadonlyMap<number, Route>, priority: number): string {
  const r = routes.get(priority)!;
  return `#${r.priority} ${r.operation} ${code(r.template)}`;
}

export function errorsView(m: ResolvedApi) {
  const dash = (v: unknown) => (v === null || v === undefined ? "not defined" : String(v));
  const catalog = m.overrides.find((o) => o.target === "api.errors");
  return {
    title: `${m.service.name} ${versionLabel(m)}: errors in each binding`,
    protoFile: m.protoFile,
    // The runtime attaches an ErrorInfo only to errors whose catalog entry has a reason
    // (packages/runtime/src/core/a2a-error.ts).
    errorInfo: m.errors.some((e) => e.reason !== null),
    uniqueGrpc: [...new Set(m.errors.map((e) => e.grpcStatus))]
      .filter((g): g is string => g !== null && m.errors.filter((e) => e.grpcStatus === g).length === 1)
      .map(code)
      .join(", "),
    catalog: catalog
      ? { source: prose(`${catalog.source.document}, ${catalog.source.section}`), decision: prose(catalog.decision) }
      : null,
    errors: m.errors.map((e) => ({
      name: code(e.name),
      jsonrpc: String(e.jsonrpcCode),
      grpc: e.grpcStatus ? code(e.grpcStatus) : "not defined",
      http: dash(e.httpStatus),
      reason: e.reason ? code(e.reason) : "not defined",
      domain: e.domain ? code(e.domain) : "not defined",
      message: prose(e.message),
    })),
    standard: m.standardErrors.map((e) => ({
      name: code(e.name),
      code: String(e.code),
      message: prose(e.message),
      grpc: e.grpcStatus ? code(e.grpcStatus) : "not tabulated",
      http: dash(e.httpStatus),
    })),
    contentTypes: m.contentTypes,
  };
}

export function overridesView(m: ResolvedApi) {
  return {
    title: `${m.service.name} ${versionLabel(m)}: overrides applied`,
    protoFile: m.protoFile,
    rows: m.overrides.map((o) => ({
      id: code(o.id),
      file: o.replaces
        ? `${code(o.file)}; replaces ${o.replaces.shipped ? "shipped " : ""}entry ${code(o.replaces.id)} ` +
          `from ${code(`${o.replaces.file}:${o.replaces.line}`)}`
        : code(o.file),
      target: code(o.target),
      summary: prose(o.summary),
      source: prose(`${o.source.document}, ${o.source.section}`),
      decision: prose(o.decision),
    })),
    headers:
      m.headersFrom === "override"
        ? { ...m.headers, absentVersionMeans: prose(m.headers.absentVersionMeans) }
        : undefined,
  };
}

/** Cross-version tables: operations matched by canonical name, oldest version first. */
export function versionsView(models: readonly ResolvedApi[]) {
  const ordered = [...models].sort((a, b) => a.release.localeCompare(b.release, undefined, { numeric: true }));
  const names = [...new Set(ordered.flatMap((m) => m.operations.map((o) => o.canonicalName)))];
  const newest = ordered[ordered.length - 1]!;
  names.sort((a, b) => index(newest, a) - index(newest, b));
  const cell = (m: ResolvedApi, name: string) => {
    const op = m.operations.find((o) => o.canonicalName === name);
    if (!op) {
      const absent = m.absentOperations.find((a) => a.name === name);
      const note = prose(absent?.note ?? "");
      return { jsonrpc: "none", grpc: "none", rest: "none", params: "none", fields: "none", note };
    }
    const input = m.messages.get(op.input)!;
    return {
      jsonrpc: code(op.jsonrpcMethod),
      grpc: code(op.name),
      rest: lines(op.bindings.filter((b) => b.origin === "rule").map((b) => route(b, op))),
      params: op.jsonrpcParams.map(code).join(", ") || "(none)",
      fields: input.fields.map((f) => code(f.jsonName) + (f.required ? " (required)" : "")).join(", ") || "(none)",
      note: "",
    };
  };
  return {
    versions: ordered.map((m) => ({
      label: versionLabel(m),
      package: code(m.package),
      service: code(m.service.fullName),
    })),
    rows: names.map((name) => ({ operation: name, cells: ordered.map((m) => cell(m, name)) })),
    overlaps: ordered.slice(1).map((newer, i) => versionOverlapsView(ordered[i]!, newer)),
    params: names.map((name) => {
      const cells = ordered.map((m) => cell(m, name));
      const first = ordered.map((m) => m.operations.find((o) => o.canonicalName === name));
      const [oldOp, newOp] = [first[0], first[first.length - 1]];
      const before = oldOp ? oldOp.jsonrpcParams : [];
      const after = newOp ? newest.messages.get(newOp.input)!.fields.map((f) => f.jsonName) : [];
      return {
        operation: name,
        cells,
        added:
          after
            .filter((f) => !before.includes(f))
            .map(code)
            .join(", ") || "–",
        removed:
          before
            .filter((f) => !after.includes(f))
            .map(code)
            .join(", ") || "–",
      };
    }),
  };
}

/** The paths two versions both route: which route each version serves them with (version-overlaps.ts). */
function versionOverlapsView(older: ResolvedApi, newer: ResolvedApi) {
  const header = newer.headers.versionHeader;
  return {
    older: versionLabel(older),
    newer: versionLabel(newer),
    header: header ? code(header) : "the version header",
    rows: findVersionOverlaps(older.routeTable, newer.routeTable).map((o) => ({
      method: o.method,
      example: code(o.example),
      older: `${o.older.operation} ${code(o.older.template)}`,
      newer: `${o.newer.operation} ${code(o.newer.template)}`,
      captured:
        Object.entries(o.captured)
          .map(([field, literal]) => `${code(field)} = ${code(JSON.stringify(literal))}`)
          .join(", ") || "–",
    })),
  };
}

function index(m: ResolvedApi, name: string): number {
  const i = m.operations.findIndex((o) => o.canonicalName === name);
  return i < 0 ? m.operations.length : i;
}

function how(s: PlanStep): string {
  if ("transform" in s) return `transform ${code(s.transform)}`;
  if ("reason" in s) return `**lossy**: ${prose(s.reason)}`;
  return s.op === "copy" ? "same value" : s.op === "message" ? "converted as its pair" : "moved";
}

/** The field-by-field mapping table of a compat plan. */
export function compatView(plan: CompatPlan) {
  const rows = (steps: readonly PlanStep[], direction: string) =>
    steps.map((s) => ({
      direction,
      from: code(s.from),
      to: "to" in s ? code(s.to) : "–",
      how: how(s),
    }));
  return {
    title: `A2A ${plan.older} ↔ ${plan.newer}: field-by-field mapping`,
    newer: code(plan.newer),
    older: code(plan.older),
    unpaired: [...Object.entries(plan.unpaired.newer), ...Object.entries(plan.unpaired.older)].map(
      ([name, reason]) => ({
        name: code(name),
        reason: prose(reason),
      }),
    ),
    pairs: plan.pairs.map((p) => ({
      newer: code(p.newer),
      older: code(p.older),
      entry: p.entry === undefined ? null : prose(p.entry),
      source: p.source === undefined ? null : prose(p.source),
      decision: p.decision === undefined ? null : prose(p.decision),
      rows: [
        ...rows(p.toOlder, "→ v0.3"),
        ...rows(p.toNewer, "→ v1.0"),
        ...Object.entries(p.dialectFields).map(([field, path]) => ({
          direction: "↔ v0.3 JSON-RPC",
          from: code(field),
          to: code(path),
          how:
            "carried by the one-pass JSON-RPC conversion (`…FromOlderJson`, `…ToOlderJson`); " +
            "lossy through the v0.3 proto (above)",
        })),
      ],
    })),
  };
}

/** The sources page: every tag the override files and the docs cite, with links to the pinned upstream files. */
export function sourcesView(t: SourceTable) {
  return {
    repository: t.repository,
    upstream: t.upstream.map((d) => ({
      tag: d.tag,
      title: prose(d.title),
      release: `${d.gitTag} (commit ${code(d.commit.slice(0, 8))})`,
      link: `[${d.path}](${d.url})`,
      citation: prose(d.citation),
    })),
    project: t.project.map((d) => ({
      tag: d.tag,
      title: prose(d.title),
      where: prose(d.where),
      description: prose(d.description),
      parts: d.parts.map((p) => ({ id: p.id, covers: prose(p.covers), restsOn: prose(p.restsOn) })),
    })),
  };
}
