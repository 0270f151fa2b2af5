/**
 * The route table → OpenAPI path items: one operation per route (the proto's rules, their `/{tenant}`
 * twins and the override aliases), in the service's operation order, each rule before its twins and aliases.
 *
 * Path keys: `{field=*}` and `{field}` become `{jsonName}`; a resource-name variable such as
 * `{name=tasks/*}` becomes its literals and one path parameter per "*" (named by the override
 * `resourcePlaceholders`, else id, id2, …: OpenAPI parameters cannot hold "/"), each saying which field it
 * fills (`x-a2a-field`, `x-a2a-pattern`); a custom verb stays in the key (`/tasks/{id}:cancel`).
 * operationIds are the RPC name, with `_tenant` for a tenant twin and `_alias` (plus the method when it
 * differs from the rule's) for an alias, numbered if still taken. Query parameters are the route's query
 * fields by camelCase name, the body the route's body fields, the 200 response the output (or
 * response_body field), an SSE stream for a server-streaming RPC. Each operation lists the override
 * entries that target it (`x-a2a-overrides`: id and target, its tenant rule included; the document's list
 * gives their sources and decisions) and its route's facts (`x-a2a-route`).
 */
import type { Route } from "@protoc-gen-a2a/runtime/protocol";
import type { AppliedOverride, BindingModel, FieldModel, MessageModel } from "../../model/model-types.js";
import type { TemplateSegment } from "../../model/path-template.js";
import type { ResolvedApi, ResolvedOperation } from "../../model/resolve-api.js";
import { compact, type Tree, type TreeObject } from "../print/doc-tree.js";
import type { ProtoJsonSchemas } from "../schemas/protojson-schemas.js";

/** What every operation shares: header parameters, error responses, the success response's headers. */
export interface SharedParts {
  readonly headerParams: readonly TreeObject[];
  readonly errorRefs: TreeObject;
  readonly responseHeaders: TreeObject | undefined;
}

interface Ctx {
  readonly m: ResolvedApi;
  readonly schemas: ProtoJsonSchemas;
  readonly shared: SharedParts;
}

/** The `paths` object of the document. */
export function openApiPaths(m: ResolvedApi, schemas: ProtoJsonSchemas, shared: SharedParts): TreeObject {
  const ctx: Ctx = { m, schemas, shared };
  const order = (r: Route) => ["rule", "additional_binding", "override"].indexOf(r.origin);
  const opIndex = new Map(m.operations.map((o, i) => [o.name, i]));
  const routes = [...m.routeTable.routes, ...m.routeTable.aliases].sort(
    (a, b) => opIndex.get(a.operation)! - opIndex.get(b.operation)! || order(a) - order(b) || a.priority - b.priority,
  );
  const ids = new Set<string>();
  const paths = new Map<string, Record<string, Tree>>();
  for (const r of routes) {
    const op = m.operations.find((o) => o.name === r.operation)!;
    const b = op.bindings.find((x) => x.template.text === r.template && x.method === r.method)!;
    const { key, params } = pathOf(ctx, op, b, r);
    const item = paths.get(key) ?? {};
    item[r.method.toLowerCase()] = operation(ctx, op, r, params, operationId(op, r, ids));
    paths.set(key, item);
  }
  return Object.fromEntries(paths);
}

function operationId(op: ResolvedOperation, r: Route, taken: Set<string>): string {
  const rule = op.bindings.find((b) => b.origin === "rule");
  const parts = [op.name];
  if (r.origin === "override") parts.push(rule && rule.method !== r.method ? r.method.toLowerCase() : "alias");
  if (r.tenantVariant) parts.push("tenant");
  let id = parts.join("_");
  for (let n = 2; taken.has(id); n++) id = `${parts.join("_")}_${n}`;
  taken.add(id);
  return id;
}

/** A field of a message by its path of proto names (`a.b`), or undefined. */
function fieldAt(m: ResolvedApi, message: string, path: string): FieldModel | undefined {
  let msg: MessageModel | undefined = m.messages.get(message);
  let found: FieldModel | undefined;
  for (const name of path.split(".")) {
    found = msg?.fields.find((f) => f.name === name);
    msg = found && found.kind === "message" ? m.messages.get(found.type) : undefined;
  }
  return found;
}

/** The path key of a binding and its path parameters. */
function pathOf(ctx: Ctx, op: ResolvedOperation, b: BindingModel, r: Route): { key: string; params: TreeObject[] } {
  const params: TreeObject[] = [];
  let k = 0;
  const placeholder = () => {
    const name = op.resourcePlaceholders?.[k] ?? (k === 0 ? "id" : `id${k + 1}`);
    k++;
    return name;
  };
  const param = (name: string, description: string, extra: TreeObject) =>
    params.push({ name, in: "path", required: true, description, schema: { type: "string" }, ...extra });
  const parts = b.template.segments.map((s) => segmentKey(ctx, op, r, s, placeholder, param));
  return { key: "/" + parts.join("/") + (b.template.verb ? ":" + b.template.verb : ""), params };
}

function segmentKey(
  ctx: Ctx,
  op: ResolvedOperation,
  r: Route,
  s: TemplateSegment,
  placeholder: () => string,
  param: (name: string, description: string, extra: TreeObject) => void,
): string {
  if (s.kind === "literal") return s.value;
  if (s.kind !== "variable") {
    const name = placeholder();
    param(name, "A path segment the template matches without binding it to a field.", {});
    return `{${name}}`;
  }
  const field = s.fieldPath.join(".");
  const jsonName = r.variables.find((v) => v.field === field)?.jsonName ?? field;
  const about = fieldAt(ctx.m, op.input, field)?.description;
  const whole = s.segments.length === 1 && s.segments[0]!.kind === "wildcard";
  if (!s.explicit || whole) {
    param(jsonName, about ?? `The request's \`${field}\` field.`, { "x-a2a-field": field });
    return `{${jsonName}}`;
  }
  const names = s.segments.map((l) => (l.kind === "literal" ? l.value : l.kind === "wildcard" ? placeholder() : "**"));
  const pattern = s.segments
    .map((l, i) => (l.kind === "literal" ? l.value : l.kind === "wildcard" ? `{${names[i]}}` : "**"))
    .join("/");
  s.segments.forEach((l, i) => {
    if (l.kind === "literal") return;
    const name = l.kind === "wildcard" ? names[i]! : jsonName;
    const multi = l.kind === "deepWildcard" ? { "x-a2a-multi-segment": true } : {};
    param(name, `Fills the request's \`${field}\` field as \`${pattern}\`.` + (about ? `\n\n${about}` : ""), {
      "x-a2a-field": field,
      "x-a2a-pattern": pattern,
      ...multi,
    });
    if (l.kind === "deepWildcard") names[i] = `{${jsonName}}`;
    else names[i] = `{${name}}`;
  });
  return names.join("/");
}

function overridesOf(m: ResolvedApi, op: ResolvedOperation, r: Route): TreeObject[] {
  // The id and target; the document's x-a2a-overrides gives each entry's file, source and decision once.
  const row = (o: AppliedOverride): TreeObject => ({ id: o.id, target: o.target });
  const own = m.overrides.filter((o) => o.target.startsWith(`operations.${op.name}.`));
  const tenant = r.tenantVariant ? m.overrides.filter((o) => o.target === "api.tenantField") : [];
  return [...own, ...tenant].map(row);
}

function description(m: ResolvedApi, op: ResolvedOperation, r: Route): string {
  const b = op.bindings.find((x) => x.template.text === r.template && x.method === r.method)!;
  const lines = [op.description ?? `The ${op.name} RPC.`];
  if (r.origin === "override") lines.push(`An alias route servers also accept (override): ${b.note ?? ""}`.trim());
  if (r.tenantVariant && m.tenantField !== null)
    lines.push(`The tenant route: the \`{tenant}\` segment fills the request's \`${m.tenantField}\` field.`);
  if (op.specRoute !== undefined && r.origin === "rule" && !r.tenantVariant)
    lines.push(`The specification text writes this route as \`${op.specRoute}\`.`);
  return lines.join("\n\n");
}

function operation(ctx: Ctx, op: ResolvedOperation, r: Route, pathParams: TreeObject[], id: string): TreeObject {
  const { m, shared } = ctx;
  const query = r.queryFields.map((q): TreeObject => {
    const f = fieldAt(m, op.input, q.field);
    const schema = f ? ctx.schemas.field(f) : { type: "string" };
    const { description: about, ...rest } = schema as { description?: Tree };
    return compact({ name: q.jsonName, in: "query", description: about, schema: rest, "x-a2a-field": q.field });
  });
  const kinds = [r.origin === "override" ? "alias" : "", r.tenantVariant ? "tenant" : ""].filter(Boolean);
  const label = kinds.length > 0 ? ` (${kinds.join(", ")} route)` : "";
  const overrides = overridesOf(m, op, r);
  return compact({
    operationId: id,
    summary: op.name + label,
    description: description(m, op, r),
    tags: [op.canonicalName],
    parameters: [...pathParams, ...query, ...shared.headerParams],
    requestBody: requestBody(ctx, op, r),
    responses: { "200": success(ctx, op, r), ...shared.errorRefs },
    "x-a2a-route": compact({
      template: r.template,
      origin: r.origin,
      priority: r.priority,
      tenantVariant: r.tenantVariant,
      grpcPath: op.grpcPath,
      jsonrpcMethod: op.jsonrpcMethod,
      specRoute: op.specRoute,
    }),
    "x-a2a-overrides": overrides.length > 0 ? overrides : undefined,
  });
}

function requestBody(ctx: Ctx, op: ResolvedOperation, r: Route): TreeObject | undefined {
  if (r.body === null || r.requestContentType === null) return undefined;
  const input = ctx.m.messages.get(op.input)!;
  let schema: TreeObject;
  let about = `The request's ${r.body === "*" ? "fields not bound to the path" : `\`${r.body}\` field`}.`;
  if (r.body === "*") {
    schema =
      r.bodyFields.length === input.fields.length
        ? ctx.schemas.ref(op.input)
        : ctx.schemas.message(input, r.bodyFields);
  } else {
    const f = fieldAt(ctx.m, op.input, r.body);
    schema = f ? ctx.schemas.field(f) : {};
    if (op.restWrappedBody !== undefined) {
      const wrapped = { type: "object", properties: { [op.restWrappedBody]: schema }, required: [op.restWrappedBody] };
      schema = { anyOf: [schema, wrapped], "x-a2a-wrapped-body": op.restWrappedBody };
      about += ` Servers also take it wrapped as \`{"${op.restWrappedBody}": …}\` (override restWrappedBody).`;
    }
  }
  return { description: about, required: true, content: { [r.requestContentType]: { schema } } };
}

function success(ctx: Ctx, op: ResolvedOperation, r: Route): TreeObject {
  const output = r.responseBody === null ? undefined : fieldAt(ctx.m, op.output, r.responseBody);
  const data = output ? ctx.schemas.field(output) : ctx.schemas.ref(op.output);
  const name = ctx.schemas.name(op.output);
  if (!r.streaming) {
    return compact({
      description: `The ${name}.`,
      headers: ctx.shared.responseHeaders,
      content: { [r.responseContentType]: { schema: data } },
    });
  }
  return compact({
    description: `A stream of server-sent events; the data of each event is one ${name} in ProtoJSON.`,
    headers: ctx.shared.responseHeaders,
    content: {
      [r.responseContentType]: {
        schema: {
          type: "array",
          description: `The stream as its events (as OpenAPI 3.2 models SSE): each event's data is one JSON ${name}.`,
          items: {
            type: "object",
            properties: { data: { type: "string", contentMediaType: "application/json", contentSchema: data } },
            required: ["data"],
          },
        },
        "x-a2a-sse": true,
      },
    },
  });
}
