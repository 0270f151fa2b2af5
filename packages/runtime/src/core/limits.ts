/**
 * The limits every binding applies to a request, in one place, so a request
 * is refused the same way whichever path it takes (JSON-RPC, HTTP+JSON or
 * gRPC, at either version):
 *
 *   body size          maxBodyBytes (default DEFAULT_MAX_BODY, 1 MiB): the
 *                      HTTP body, and each gRPC message (RESOURCE_EXHAUSTED);
 *   JSON nesting       the request message, as JSON, nests at most
 *                      MAX_JSON_DEPTH objects and arrays (InvalidParams);
 *   string validity    no string or member name holds a lone surrogate,
 *                      which UTF-8 cannot carry (InvalidParams);
 *   A2A-Extensions     at most MAX_EXTENSIONS_HEADER characters;
 *   JSON-RPC id        a string id at most MAX_JSONRPC_ID_CHARS characters
 *                      (InvalidRequest, answered with id null): the answer
 *                      repeats the id, and a stream repeats it in every event;
 *   gRPC deadlines     at most MAX_DEADLINE_MS (longer ones are clamped).
 *
 * A JSON-RPC client holds the results it reads to the same string rule (a
 * v0.3 result goes to the version bridge's one-pass conversions, which do
 * not check strings; protobuf-es's fromJson does), nesting at most
 * MAX_RESULT_DEPTH.
 *
 * The JSON checks run on the parsed request before any conversion or
 * handler, so a request they refuse leaves nothing behind. They stop at the
 * first problem and never go below MAX_JSON_DEPTH, so a body nested a
 * million levels deep costs one pass down to MAX_JSON_DEPTH and no more.
 * MAX_JSON_DEPTH is below the recursion limit of the protobuf JSON reader
 * (100 messages), so on the JSON bindings the reader never refuses first.
 * The binary reader counts a Struct level as two messages: a gRPC request
 * whose Struct nests about 50 levels reaches its limit before the message
 * can be checked, and is refused INVALID_ARGUMENT in the reader's words
 * ("maximum recursion depth"), without the field path (grpc-limits.ts).
 */

/** Longest string id of a JSON-RPC request, in UTF-16 code units (a UUID takes 36). */
export const MAX_JSONRPC_ID_CHARS = 256;

/** Largest request body, in bytes, unless the server options say otherwise (also each gRPC message). */
export const DEFAULT_MAX_BODY = 1 << 20;

/** Deepest nesting of objects and arrays in a request message, counted from the message itself (depth 1). */
export const MAX_JSON_DEPTH = 48;

/**
 * Deepest nesting in a JSON-RPC result a client reads (client-jsonrpc.ts checks results as servers check
 * requests): as deep as protobuf-es reads JSON, so that the check refuses no result a reader would take; it
 * is there for the strings, and to keep its own walk bounded.
 */
export const MAX_RESULT_DEPTH = 100;

/** Longest A2A-Extensions header (or gRPC metadata value) accepted, in characters. */
export const MAX_EXTENSIONS_HEADER = 8192;

/** Longest deadline a timer can hold (2^31 - 1 ms, about 24.8 days); longer gRPC deadlines are clamped to it. */
export const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** Longest characters of one member name shown in a path. */
const KEY_SHOWN = 40;

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string | number | undefined;
}

const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** What is wrong at a place, given the place's path once it is known. */
type Found = (where: string) => string;

/**
 * Why a parsed JSON request is refused, naming the place (`root` is the name of the value, e.g. "params"),
 * or undefined when it is within the limits. The walk recurses at most maxDepth levels (it refuses before
 * going deeper) and allocates nothing unless it finds a problem: the path is collected on the way back.
 */
export function jsonLimitProblem(value: unknown, root: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  // Keys are pushed only once a problem is found, so one array serves every call (the walk is synchronous).
  const found = checkJson(value, 1, maxDepth, foundPath);
  if (!found) return undefined;
  return found(pathText(root, foundPath.splice(0).reverse()));
}

const foundPath: (string | number)[] = [];

const loneSurrogate: Found = (where) => `${where} holds a lone surrogate, which UTF-8 cannot carry`;
const loneSurrogateKey: Found = (where) => `a member name in ${where} holds a lone surrogate`;

/** The problem at or below `v`, with the keys from `v` down to it pushed on `path` (innermost first). */
function checkJson(v: unknown, depth: number, maxDepth: number, path: (string | number)[]): Found | undefined {
  if (typeof v === "string") return wellFormed(v) ? undefined : loneSurrogate;
  if (typeof v !== "object" || v === null) return undefined;
  if (depth > maxDepth) return (where) => `${where} nests deeper than ${maxDepth} levels of objects and arrays`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = checkJson(v[i], depth + 1, maxDepth, path);
      if (found) {
        path.push(i);
        return found;
      }
    }
    return undefined;
  }
  const obj = v as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (!wellFormed(k)) return loneSurrogateKey;
    const found = checkJson(obj[k], depth + 1, maxDepth, path);
    if (found) {
      path.push(k);
      return found;
    }
  }
  return undefined;
}

/**
 * Why a decoded protobuf message (protobuf-es's plain objects) is refused, or undefined. It counts what its
 * JSON form would nest: a message, a map, a list or a Struct value is a level; a oneof's {case, value} holder
 * is not, and bytes are a leaf.
 */
export function messageLimitProblem(message: object, root: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: Frame[] = [{ value: message, depth: 1, parent: undefined, key: undefined }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const v = frame.value;
    if (typeof v !== "object" || v === null || v instanceof Uint8Array) continue;
    if (frame.depth > maxDepth)
      return `${pathOf(frame, root)} nests deeper than ${maxDepth} levels of objects and arrays`;
    const oneof = !Array.isArray(v) && "case" in v && !("$typeName" in v);
    const depth = oneof ? frame.depth : frame.depth + 1;
    for (const [k, item] of Object.entries(v)) {
      if (k === "$typeName" || k === "$unknown" || (oneof && k === "case")) continue;
      stack.push({ value: item, depth, parent: frame, key: oneof ? undefined : Array.isArray(v) ? Number(k) : k });
    }
  }
  return undefined;
}

/** The keys from a frame's root down to it. */
function pathOf(frame: Frame, root: string): string {
  const keys: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.parent !== undefined; f = f.parent)
    if (f.key !== undefined) keys.push(f.key);
  return pathText(root, keys.reverse());
}

/**
 * "params.message.metadata.a[0].b": member names cut to KEY_SHOWN characters; a long path keeps its first and
 * last segments around "…".
 */
function pathText(root: string, keys: readonly (string | number)[]): string {
  const parts = keys.map((k) =>
    typeof k === "number" ? `[${k}]` : `.${k.length > KEY_SHOWN ? `${k.slice(0, KEY_SHOWN)}…` : k}`,
  );
  const shown = parts.length > 12 ? [...parts.slice(0, 8), "…", ...parts.slice(-3)] : parts;
  return root + shown.join("");
}

/** Refuses an A2A-Extensions value longer than MAX_EXTENSIONS_HEADER: the reason, or undefined. */
export function extensionsHeaderProblem(value: string | null | undefined, name: string): string | undefined {
  if (!value || value.length <= MAX_EXTENSIONS_HEADER) return undefined;
  return `${name} is ${value.length} characters long; at most ${MAX_EXTENSIONS_HEADER} are accepted`;
}
