/** The runtime that generated code imports as "protoc-gen-a2a/runtime". */
export type { Route, RouteOverlap, RouteQueryField, RouteSegment, RouteVariable } from "./route-types.js";
export { compilePathMatcher, expandPath, PathExpansionError, type MatchResult, type PathMatcher } from "./path-matcher.js";
export { decodeMultiSegmentValue, decodeSegmentValue, encodeMultiSegmentValue, encodeSegmentValue } from "./path-codec.js";
export { unmatchedResponse, type UnmatchedResponse } from "./unmatched.js";
