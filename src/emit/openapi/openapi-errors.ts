/**
 * The error responses of an OpenAPI document, from the version's error catalog (api.errors) and the
 * standard errors that have an HTTP status (api.standardErrors).
 *
 * Rule: one response component per HTTP status, listing the errors answered with it (`x-a2a-errors`:
 * name, JSON-RPC code, gRPC status, ErrorInfo reason and domain, default message), with the error body
 * the runtime writes (packages/runtime/src/core/a2a-error.ts, toRestError):
 *   - a catalog with ErrorInfo reasons (v1.0): {"error": {code, status, message, details: [ErrorInfo]}},
 *     code the HTTP status, status the gRPC status name, ErrorInfo google.rpc.ErrorInfo's ProtoJSON with
 *     "@type" (google/rpc/error_details.proto);
 *   - a catalog without (v0.3 defines no REST error format): {code, message, data}, code the JSON-RPC code.
 * Every operation refers to every status: the catalog does not say which operation answers which error.
 */
import type { ResolvedApi } from "../../model/resolve-api.js";
import { compact, type TreeObject } from "../print/doc-tree.js";
import type { ProtoJsonSchemas } from "../schemas/protojson-schemas.js";

const ERROR_INFO_TYPE_URL = "type.googleapis.com/google.rpc.ErrorInfo";

interface StatusErrors {
  readonly status: number;
  readonly errors: readonly TreeObject[];
}

/** The errors of the catalog and the standard ones with an HTTP status, grouped by status, in status order. */
function byStatus(m: ResolvedApi): StatusErrors[] {
  const rows = [
    ...m.errors.flatMap((e) =>
      e.httpStatus === null
        ? []
        : [
            {
              status: e.httpStatus,
              row: compact({
                name: e.name,
                jsonrpcCode: e.jsonrpcCode,
                grpcStatus: e.grpcStatus,
                reason: e.reason,
                domain: e.domain,
                message: e.message,
              }),
            },
          ],
    ),
    ...m.standardErrors.flatMap((e) =>
      e.httpStatus === null
        ? []
        : [
            {
              status: e.httpStatus,
              row: { name: e.name, jsonrpcCode: e.code, grpcStatus: e.grpcStatus, message: e.message },
            },
          ],
    ),
  ];
  const statuses = [...new Set(rows.map((r) => r.status))].sort((a, b) => a - b);
  return statuses.map((status) => ({ status, errors: rows.filter((r) => r.status === status).map((r) => r.row) }));
}

/** The error body schema component(s); returns the reference to the body. */
function errorBody(m: ResolvedApi, schemas: ProtoJsonSchemas): TreeObject {
  const catalog = m.overrides.find((o) => o.target === "api.errors");
  const from = catalog
    ? ` Catalog: override ${catalog.id} (${catalog.source.document}, ${catalog.source.section}).`
    : "";
  if (!m.errors.some((e) => e.reason !== null)) {
    return schemas.define("Error", {
      type: "object",
      description:
        "An HTTP+JSON error: the JSON-RPC error object's fields (this version defines no REST error format)." + from,
      properties: {
        code: { type: "integer", description: "The JSON-RPC error code of the catalog entry." },
        message: { type: "string" },
        data: { description: "Free-form error data, if any." },
      },
      required: ["code", "message"],
    });
  }
  const reasons = [...new Set(m.errors.flatMap((e) => (e.reason === null ? [] : [e.reason])))];
  const info = schemas.define("ErrorInfo", {
    type: "object",
    description: "google.rpc.ErrorInfo in ProtoJSON, with its type URL: the catalog entry's reason and domain.",
    properties: {
      "@type": { type: "string", const: ERROR_INFO_TYPE_URL },
      reason: { type: "string", enum: reasons },
      domain: { type: "string" },
      metadata: { type: "object", additionalProperties: { type: "string" } },
    },
    required: ["@type", "reason", "domain"],
  });
  const grpc = [
    ...new Set([...m.errors, ...m.standardErrors].flatMap((e) => (e.grpcStatus === null ? [] : [e.grpcStatus]))),
  ];
  return schemas.define("Error", {
    type: "object",
    description: "An HTTP+JSON error body (google.rpc.Status in the error key)." + from,
    properties: {
      error: {
        type: "object",
        properties: {
          code: { type: "integer", description: "The HTTP status." },
          status: { type: "string", description: "The gRPC status name.", enum: grpc },
          message: { type: "string" },
          details: { type: "array", items: info },
        },
        required: ["code", "status", "message", "details"],
      },
    },
    required: ["error"],
  });
}

/** Response components by name (`Error400`, …) and the `responses` entries each operation carries. */
export function errorResponses(
  m: ResolvedApi,
  schemas: ProtoJsonSchemas,
  headers: TreeObject,
): { components: TreeObject; refs: TreeObject } {
  const body = errorBody(m, schemas);
  const groups = byStatus(m);
  const components = Object.fromEntries(
    groups.map((g) => [
      `Error${g.status}`,
      {
        description: `HTTP ${g.status}: ${g.errors.map((e) => e["name"]).join(", ")}.`,
        // An error answers with the extensions activated for the call too, as a success does.
        headers,
        content: { [m.contentTypes.rest.error]: { schema: body } },
        "x-a2a-errors": g.errors,
      },
    ]),
  );
  const refs = Object.fromEntries(
    groups.map((g) => [String(g.status), { $ref: `#/components/responses/Error${g.status}` }]),
  );
  return { components, refs };
}
