/**
 * The HTTP answer for a path the route table does not serve: 405 with an
 * Allow header when the path exists for other methods, 404 otherwise, 400
 * for a malformed escape. A bare 404 like this one carries no A2A ErrorInfo,
 * so a client can tell a wrong route from TaskNotFoundError.
 */
import type { MatchResult } from "./path-matcher.js";

export interface UnmatchedResponse {
  readonly status: 400 | 404 | 405;
  readonly headers: Readonly<Record<string, string>>;
}

export function unmatchedResponse(result: Exclude<MatchResult, { status: 200 }>): UnmatchedResponse {
  if (result.status === 405) return { status: 405, headers: { allow: result.allow.join(", ") } };
  return { status: result.status, headers: {} };
}
