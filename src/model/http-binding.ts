/**
 * One google.api.http rule (or additional binding) → BindingModel, validated
 * against the rules of google/api/http.proto:
 *
 * - a path variable names a field path of the request; each step exists, the
 *   steps before the last are singular messages, and the last is a singular,
 *   non-map, non-message field;
 * - `body` is "*" or a top-level request field, and is absent for GET and DELETE;
 * - `response_body` is a top-level field of the response;
 * - additional bindings do not nest.
 *
 * Derived fields: path fields are the variables; body fields are the body
 * field, or every top-level field not bound by the path when body is "*";
 * query fields are the remaining top-level scalar, enum and well-known-scalar
 * fields when body is not "*". Query names are the JSON (camelCase) names,
 * following the A2A specification §11.5.
 */
import type { RouteQueryField, RouteVariable } from "@protoc-gen-a2a/runtime/protocol";
import type { BindingModel, FieldModel, MessageModel } from "./model-types.js";
import { flattenTemplate, parsePathTemplate, TemplateSyntaxError, type PathTemplate } from "./path-template.js";
import type { Problems } from "../generation-error.js";

/** Message types that ProtoJSON writes as one string, so they fit a query parameter. */
const queryableMessages = new Set([
  "google.protobuf.Timestamp",
  "google.protobuf.Duration",
  "google.protobuf.FieldMask",
  "google.protobuf.StringValue",
  "google.protobuf.BoolValue",
  "google.protobuf.Int32Value",
  "google.protobuf.Int64Value",
  "google.protobuf.UInt32Value",
  "google.protobuf.UInt64Value",
  "google.protobuf.FloatValue",
  "google.protobuf.DoubleValue",
  "google.protobuf.BytesValue",
]);

export interface RawRule {
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly responseBody: string;
  readonly nestedBindings: number;
}

export interface BindingContext {
  /** e.g. "v1.0.1/a2a.proto: rpc lf.a2a.v1.A2AService.GetTask" */
  readonly place: string;
  readonly input: MessageModel;
  readonly output: MessageModel;
  readonly messages: ReadonlyMap<string, MessageModel>;
  readonly problems: Problems;
}

export function buildBinding(
  rule: RawRule,
  origin: BindingModel["origin"],
  ctx: BindingContext,
): BindingModel | undefined {
  const binding = origin === "additional_binding" ? "additional binding " : "";
  const where = `${ctx.place}: ${binding}${rule.method} "${rule.path}"`;
  const before = ctx.problems.size;
  if (rule.nestedBindings > 0) ctx.problems.add(`${where}: additional_bindings must not nest`);
  let template: PathTemplate;
  try {
    template = parsePathTemplate(rule.path);
  } catch (e) {
    if (!(e instanceof TemplateSyntaxError)) throw e;
    ctx.problems.add(`${where}: column ${e.column}: ${e.reason}`);
    return undefined;
  }
  const flat = flattenTemplate(template);
  const variables: RouteVariable[] = [];
  const seen = new Set<string>();
  for (const v of flat.variables) {
    const field = resolveFieldPath(v.fieldPath, ctx, where);
    if (!field) continue;
    if (seen.has(v.fieldPath)) ctx.problems.add(`${where}: field "${v.fieldPath}" is bound twice in the path`);
    seen.add(v.fieldPath);
    variables.push({ field: v.fieldPath, jsonName: field.jsonPath, start: v.start, end: v.end });
  }
  const pathRoots = new Set(flat.variables.map((v) => v.fieldPath.split(".")[0]!));

  const body = rule.body === "" ? null : rule.body;
  if (body !== null && (rule.method === "GET" || rule.method === "DELETE")) {
    ctx.problems.add(`${where}: a ${rule.method} binding cannot have a body (body: "${body}")`);
  }
  if (body !== null && body !== "*") {
    const f = ctx.input.fields.find((x) => x.name === body);
    if (!f) ctx.problems.add(`${where}: body "${body}" is not a field of ${ctx.input.fullName}`);
    else if (pathRoots.has(body)) ctx.problems.add(`${where}: body field "${body}" is also bound in the path`);
  }
  const responseBody = rule.responseBody === "" ? null : rule.responseBody;
  if (responseBody !== null && !ctx.output.fields.some((x) => x.name === responseBody)) {
    ctx.problems.add(`${where}: response_body "${responseBody}" is not a field of ${ctx.output.fullName}`);
  }
  if (ctx.problems.size > before) return undefined;

  const unbound = ctx.input.fields.filter((f) => !pathRoots.has(f.name));
  const bodyFields =
    body === "*"
      ? unbound.map((f) => f.jsonName)
      : body !== null
        ? [ctx.input.fields.find((f) => f.name === body)!.jsonName]
        : [];
  const queryFields: RouteQueryField[] =
    body === "*"
      ? []
      : unbound
          .filter((f) => f.name !== body && isQueryable(f))
          .map((f) => ({
            field: f.name,
            jsonName: f.jsonName,
            repeated: f.repeated,
            type: f.type,
          }));

  return {
    method: rule.method,
    template,
    segments: flat.segments,
    verb: template.verb ?? null,
    variables,
    body,
    bodyFields,
    queryFields,
    responseBody,
    origin,
    tenantVariant: false,
  };
}

function isQueryable(f: FieldModel): boolean {
  if (f.map) return false;
  return f.kind !== "message" || queryableMessages.has(f.type);
}

function resolveFieldPath(
  path: string,
  ctx: BindingContext,
  where: string,
): { field: FieldModel; jsonPath: string } | undefined {
  let msg: MessageModel | undefined = ctx.input;
  const steps = path.split(".");
  const json: string[] = [];
  let field: FieldModel | undefined;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    field = msg?.fields.find((f) => f.name === step);
    if (!msg || !field) {
      ctx.problems.add(`${where}: variable "${path}" names no field "${step}" in ${msg?.fullName ?? "?"}`);
      return undefined;
    }
    json.push(field.jsonName);
    const last = i === steps.length - 1;
    if (field.map || field.repeated) {
      ctx.problems.add(
        `${where}: variable "${path}" names a ${field.map ? "map" : "repeated"} field; path variables must be singular`,
      );
      return undefined;
    }
    if (last && field.kind === "message") {
      ctx.problems.add(
        `${where}: variable "${path}" names the message field ${field.type}; path variables must be scalars or enums`,
      );
      return undefined;
    }
    if (!last) {
      if (field.kind !== "message") {
        ctx.problems.add(
          `${where}: variable "${path}": "${step}" is not a message, so it has no field "${steps[i + 1]}"`,
        );
        return undefined;
      }
      msg = ctx.messages.get(field.type);
    }
  }
  return { field: field!, jsonPath: json.join(".") };
}
