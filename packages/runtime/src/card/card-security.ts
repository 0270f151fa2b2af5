/**
 * An agent card's security (spec §4.5, FACTS C.18), as clients (the
 * credentials they send, client/credentials.ts) and servers (what they
 * require, auth/authenticate.ts) read it, from each form a card takes:
 *
 *   v1.0 ProtoJSON  securitySchemes {name: {apiKeySecurityScheme: {location,
 *                   name}} | {httpAuthSecurityScheme: {scheme}} |
 *                   {oauth2SecurityScheme: {flows, oauth2MetadataUrl}} |
 *                   {openIdConnectSecurityScheme: {openIdConnectUrl}} |
 *                   {mtlsSecurityScheme: {}}}; securityRequirements
 *                   [{schemes: {name: {list: [scope]}}}]
 *   messages        the same as protobuf-es messages (v1.0 or v0.3): `scheme`
 *                   and `flows.flow` are oneofs {case, value}; read so in a
 *                   card from elsewhere only in a scheme message (with
 *                   `$typeName`): in JSON such members are unknown fields,
 *                   which a card's signature does not cover (read a verified
 *                   card's `card`, card/verify.ts); in a card of the reader's
 *                   own code (trusted) also in an init shape
 *   v0.3 ProtoJSON  the v1.0 scheme form; requirements under `security`
 *   v0.3 a2a.json   securitySchemes {name: {type: apiKey|http|oauth2|
 *                   openIdConnect|mutualTLS, in, name, scheme, flows,
 *                   oauth2MetadataUrl, openIdConnectUrl}}; security
 *                   [{name: [scope]}]
 *
 * Requirements are an OR of ANDs, each mapping scheme names to scopes. What
 * cannot be read (an unknown scheme type, an API key location other than
 * header, query or cookie) is kept as "unknown": to a client the card is
 * someone else's, so the requirements naming it are never met and the others
 * still are; a server refuses to start on its own card with one (AuthSetupError).
 */

/** One declared scheme, by its type. */
export type CardScheme =
  | { readonly type: "apiKey"; readonly location: "header" | "query" | "cookie"; readonly key: string }
  | { readonly type: "http"; readonly scheme: string }
  | { readonly type: "oauth2"; readonly tokenUrl: string | undefined; readonly metadataUrl: string | undefined }
  | { readonly type: "openIdConnect"; readonly openIdConnectUrl: string }
  | { readonly type: "mutualTLS" }
  | { readonly type: "unknown"; readonly why: string };

/** One requirement: scheme name → the scopes it asks for. */
export type CardRequirement = ReadonlyMap<string, readonly string[]>;

export interface CardSecurity {
  readonly schemes: ReadonlyMap<string, CardScheme>;
  /** In the card's order; empty when the card lists none. */
  readonly requirements: readonly CardRequirement[];
}

type Json = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === "string" ? v : "");
const optional = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const scopesOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === "string") : []);

/** The security of a card (JSON of either version, or a parsed message). */
export function readCardSecurity(card: unknown, options: CardSecurityReadOptions = {}): CardSecurity {
  const c = isObject(card) ? card : {};
  return { schemes: readSchemes(c["securitySchemes"], options), requirements: readRequirements(c) };
}

export interface CardSecurityReadOptions {
  /**
   * The card comes from the reader's own code (a server's card, in authenticate; schemes a caller wrote, in
   * credentialsInterceptor): oneofs {case, value} are read in any scheme, so an init shape (MessageInitShape)
   * serves. Default false, for a card fetched from elsewhere: only in a scheme message.
   */
  readonly trusted?: boolean;
}

/** A `securitySchemes` map, of any form, by name; oneofs {case, value} as `options` says. */
export function readSchemes(declared: unknown, options: CardSecurityReadOptions = {}): ReadonlyMap<string, CardScheme> {
  const out = new Map<string, CardScheme>();
  for (const [name, raw] of Object.entries(isObject(declared) ? declared : {})) {
    const oneofs = options.trusted === true || (isObject(raw) && typeof raw["$typeName"] === "string");
    out.set(name, readScheme(raw, oneofs));
  }
  return out;
}

function readRequirements(card: Json): CardRequirement[] {
  // v1.0 under its JSON or proto name (ProtoJSON reads both), else v0.3's `security`.
  const v10 = card["securityRequirements"] ?? card["security_requirements"];
  const list = Array.isArray(v10) ? v10 : card["security"];
  if (!Array.isArray(list)) return [];
  return list.map((r: unknown) => {
    if (!isObject(r)) return new Map();
    // The proto form {schemes: {name: {list}}}; a2a.json's {name: [scopes]} (a scheme named "schemes" holds a list).
    const proto = isObject(r["schemes"]) ? r["schemes"] : undefined;
    if (proto) return new Map(Object.entries(proto).map(([n, l]) => [n, scopesOf(isObject(l) ? l["list"] : [])]));
    return new Map(Object.entries(r).map(([n, s]) => [n, scopesOf(s)]));
  });
}

/** The one member of a proto-form scheme: a message's oneof (when `oneofs`), or ProtoJSON {apiKeySecurityScheme}. */
function protoMember(raw: Json, oneofs: boolean): [string, Json] | undefined {
  const oneof = raw["scheme"];
  if (oneofs && isObject(oneof) && typeof oneof["case"] === "string" && isObject(oneof["value"])) {
    return [oneof["case"], oneof["value"]];
  }
  const key = Object.keys(raw).find((k) => k.endsWith("SecurityScheme"));
  const body = key ? raw[key] : undefined;
  return key && isObject(body) ? [key, body] : undefined;
}

function readScheme(raw: unknown, oneofs: boolean): CardScheme {
  if (!isObject(raw)) return { type: "unknown", why: "not an object" };
  const [kind, body] = protoMember(raw, oneofs) ?? [text(raw["type"]), raw];
  switch (kind) {
    case "apiKeySecurityScheme":
    case "apiKey":
      return apiKeyScheme(text(body["location"]) || text(body["in"]), text(body["name"]));
    case "httpAuthSecurityScheme":
    case "http":
      return { type: "http", scheme: text(body["scheme"]) };
    case "oauth2SecurityScheme":
    case "oauth2":
      return {
        type: "oauth2",
        tokenUrl: tokenUrlOf(body["flows"], oneofs),
        metadataUrl: optional(body["oauth2MetadataUrl"]),
      };
    case "openIdConnectSecurityScheme":
    case "openIdConnect":
      return { type: "openIdConnect", openIdConnectUrl: text(body["openIdConnectUrl"]) };
    case "mtlsSecurityScheme":
    case "mutualTLS":
      return { type: "mutualTLS" };
    default:
      return { type: "unknown", why: `scheme type "${kind}" is not one this client knows` };
  }
}

function apiKeyScheme(location: string, key: string): CardScheme {
  const where = location.toLowerCase();
  if (where !== "header" && where !== "query" && where !== "cookie")
    return { type: "unknown", why: `API key location "${location}" is not header, query or cookie` };
  if (key === "") return { type: "unknown", why: "API key without a name" };
  return { type: "apiKey", location: where, key };
}

/** The client-credentials token URL of OAuthFlows: a message's oneof (when `oneofs`), or the JSON member. */
function tokenUrlOf(flows: unknown, oneofs: boolean): string | undefined {
  if (!isObject(flows)) return undefined;
  const oneof = flows["flow"];
  const fromOneof = oneofs && isObject(oneof) && oneof["case"] === "clientCredentials" ? oneof["value"] : undefined;
  const cc = fromOneof ?? flows["clientCredentials"];
  return isObject(cc) ? optional(cc["tokenUrl"]) : undefined;
}
