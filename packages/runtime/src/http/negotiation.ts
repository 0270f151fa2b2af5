/**
 * Service parameters: which protocol version a call speaks (A2A-Version) and
 * which extensions the client declared (A2A-Extensions), per the version's
 * header rules (from the override files).
 *
 * Version: the header (names are case-insensitive; gRPC keys arrive
 * lowercase), else the query parameter when the rules name one; absent or
 * empty means `absentVersionMeans` ("0.3"), and a refusal then says the
 * version was missing. `Major.Minor.Patch` counts as Major.Minor under
 * "ignore-patch". A header sent more than once arrives joined with ", "
 * (node:http, fetch, gRPC metadata): values that name the same version
 * ("1.0, 1.0", and under "ignore-patch" "1.0, 1.0.1") count as one; values
 * that name different versions are refused, naming them all. A version
 * without a version header (v0.3) accepts every call.
 */
import type { ProtocolTables } from "../core/protocol-tables.js";

const versionRe = /^(\d+)\.(\d+)(?:\.(\d+))?$/;

export type VersionResult =
  | { readonly ok: true; readonly version: string }
  /**
   * `missing`: no version was sent (or an empty one), so `requested` is `absentVersionMeans`; `several`: the
   * different versions a repeated header named (`requested` joins them).
   */
  | { readonly ok: false; readonly requested: string; readonly missing: boolean; readonly several?: readonly string[] };

export function negotiateVersion(
  rules: ProtocolTables,
  header: string | null | undefined,
  query?: string | null,
): VersionResult {
  if (rules.headers.versionHeader === null) return { ok: true, version: rules.protocolVersion };
  const raw = (header ?? query ?? "").trim();
  if (raw === rules.protocolVersion) return { ok: true, version: raw }; // the common case, as sent
  const values = distinctVersions(raw, rules.headers.patchVersion === "ignore-patch");
  if (values.length > 1) return { ok: false, requested: values.join(", "), missing: false, several: values };
  const missing = values.length === 0;
  const requested = missing ? rules.headers.absentVersionMeans : values[0]!;
  const m = versionRe.exec(requested);
  if (!m || (m[3] !== undefined && rules.headers.patchVersion === "reject")) return { ok: false, requested, missing };
  const majorMinor = `${Number(m[1])}.${Number(m[2])}`;
  return majorMinor === rules.protocolVersion ? { ok: true, version: majorMinor } : { ok: false, requested, missing };
}

/**
 * The versions a version header's value names, each once, in the order first seen: the value is split on ","
 * (a repeated header arrives joined with ", "), empty items dropped; two items are one version when they are
 * the same text or, with `ignorePatch`, the same Major.Minor. [] for an absent or empty value.
 */
export function distinctVersions(value: string, ignorePatch: boolean): string[] {
  if (!value.includes(",")) return value === "" ? [] : [value];
  const seen = new Map<string, string>();
  for (const item of value.split(",")) {
    const v = item.trim();
    if (v === "") continue;
    const m = ignorePatch ? versionRe.exec(v) : null;
    const key = m ? `${Number(m[1])}.${Number(m[2])}` : v;
    if (!seen.has(key)) seen.set(key, v);
  }
  return [...seen.values()];
}

/** The version of an HTTP call (JSON-RPC or HTTP+JSON): header, else the query parameter the rules name. */
export function negotiateHttpVersion(
  rules: ProtocolTables,
  req: { header(name: string): string | null; readonly query: URLSearchParams },
): VersionResult {
  const h = rules.headers;
  const header = h.versionHeader ? req.header(h.versionHeader) : null;
  const query = header === null && h.versionQueryParameter ? queryVersion(req.query, h.versionQueryParameter) : null;
  return negotiateVersion(rules, header, query);
}

/**
 * The version query parameter's values joined with ", ", as repeated headers arrive, so a repeat is read as a
 * repeated header is (one version named twice is that version; two versions are refused); null when absent.
 */
export function queryVersion(query: URLSearchParams, name: string): string | null {
  const values = query.getAll(name);
  return values.length === 0 ? null : values.join(", ");
}

/**
 * Comma-separated URIs, each kept once in the order first seen; repeated headers arrive joined with ", " and are
 * split the same way. Linear in the length of the value (callers bound it: MAX_EXTENSIONS_HEADER, limits.ts).
 */
export function parseExtensions(value: string | null | undefined): string[] {
  if (!value) return [];
  const seen = new Set<string>();
  for (const part of value.split(",")) {
    const uri = part.trim();
    if (uri !== "") seen.add(uri);
  }
  return [...seen];
}
