/**
 * The shape of one HTTP binding in a generated route table (`*_routes.ts` and
 * `*_routes.json`). schemas/routes.schema.json describes the same shape.
 */

/** A flat path segment: a literal, "*" (one segment) or "**" (the rest). */
export type RouteSegment = string;

export interface RouteVariable {
  /** Dotted proto field path, e.g. "task_id". */
  readonly field: string;
  /** The field's ProtoJSON name, e.g. "taskId". */
  readonly jsonName: string;
  /** First flat segment the variable covers. */
  readonly start: number;
  /** One past its last flat segment. */
  readonly end: number;
}

export interface RouteQueryField {
  readonly field: string;
  /** The camelCase name used on the wire (spec §11.5). */
  readonly jsonName: string;
  readonly repeated: boolean;
  /** Scalar kind: string, bool, int32, …, enum, or a well-known type name. */
  readonly type: string;
}

export interface Route {
  /** RPC name in the proto service. */
  readonly operation: string;
  /** HTTP method: GET, POST, PUT, PATCH, DELETE. */
  readonly method: string;
  /** Template text as written in the proto (or override). */
  readonly template: string;
  readonly segments: readonly RouteSegment[];
  /** Custom verb after ":" in the template, if any. */
  readonly verb: string | null;
  readonly variables: readonly RouteVariable[];
  /** The rule's `body`: "*", a top-level field name, or null. */
  readonly body: string | null;
  /** JSON names of the request fields carried in the body. */
  readonly bodyFields: readonly string[];
  readonly queryFields: readonly RouteQueryField[];
  /** The rule's `response_body`, or null for the whole response. */
  readonly responseBody: string | null;
  /** True for a `/{tenant}/…` variant. */
  readonly tenantVariant: boolean;
  /** Where the binding comes from: the primary rule, an additional binding, or an override. */
  readonly origin: "rule" | "additional_binding" | "override";
  readonly requestContentType: string | null;
  readonly responseContentType: string;
  readonly streaming: boolean;
  /** 1 matches first. See docs: literal segments beat variables, left to right. */
  readonly priority: number;
}

/** A path that two routes match; the one with the lower priority serves it. */
export interface RouteOverlap {
  readonly method: string;
  /** A concrete path both templates match. */
  readonly example: string;
  /** Operation and template of the route that serves the example. */
  readonly winner: string;
  readonly loser: string;
  /** How many routes take paths from the loser; at most three of them are listed. */
  readonly winnersOfLoser: number;
  readonly winnerPriority: number;
  readonly loserPriority: number;
}
