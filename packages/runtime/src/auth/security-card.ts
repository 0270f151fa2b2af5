/**
 * The security an agent card declares, read into one shape from each form a
 * card takes (FACTS C.18):
 *
 *   v1.0 ProtoJSON  securitySchemes {name: {apiKeySecurityScheme: {location,
 *                   name}} | {httpAuthSecurityScheme: {scheme}} |
 *                   {oauth2SecurityScheme: {flows, oauth2MetadataUrl}} |
 *                   {openIdConnectSecurityScheme: {openIdConnectUrl}} |
 *                   {mtlsSecurityScheme: {}}}; securityRequirements
 *                   [{schemes: {name: {list: [scope]}}}]
 *   v1.0 message    the same as protobuf-es messages: `scheme` is a oneof
 *                   {case, value}; field names are the JSON names
 *   v0.3 a2a.json   securitySchemes {name: {type: apiKey|http|oauth2|
 *                   openIdConnect|mutualTLS, in, name, scheme, …}}; security
 *                   [{name: [scope]}]
 *
 * Requirements are an OR of ANDs: a call is admitted when it meets every
 * scheme of one requirement, with the scopes that requirement lists. An empty
 * requirement admits any call; no requirements at all: nothing is required.
 * A requirement naming a scheme the card does not declare is an error naming it.
 */

/** One declared scheme, by its type. */
export type SecurityScheme =
  | {
      readonly type: "apiKey";
      readonly name: string;
      readonly location: "header" | "query" | "cookie";
      readonly key: string;
    }
  | { readonly type: "http"; readonly name: string; readonly scheme: string }
  | {
      readonly type: "oauth2";
      readonly name: string;
      readonly tokenUrl: string | undefined;
      readonly metadataUrl: string | undefined;
    }
  | { readonly type: "openIdConnect"; readonly name: string; readonly openIdConnectUrl: string }
  | { readonly type: "mtls"; readonly name: string };

/** One requirement: scheme name → the scopes it needs. */
export type SecurityRequirement = ReadonlyMap<string, readonly string[]>;

export interface CardSecurity {
  readonly schemes: ReadonlyMap<string, SecurityScheme>;
  /** Empty: the card requires nothing. */
  readonly requirements: readonly SecurityRequirement[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === "string" ? v : "");

/** The card's security, or throws an Error naming the card field that is wrong. */
export function readCardSecurity(card: unknown): CardSecurity {
  if (!isObject(card)) throw new Error("agent card: not an object");
  const schemes = new Map<string, SecurityScheme>();
  const declared = isObject(card["securitySchemes"]) ? card["securitySchemes"] : {};
  for (const [name, raw] of Object.entries(declared)) schemes.set(name, readScheme(name, raw));
  const requirements = readRequirements(card);
  for (const [i, requirement] of requirements.entries()) {
    for (const name of requirement.keys()) {
      if (!schemes.has(name)) {
        throw new Error(`agent card: security requirement ${i} names scheme "${name}", which securitySchemes lacks`);
      }
    }
  }
  return { schemes, requirements };
}

function readRequirements(card: Json): SecurityRequirement[] {
  const v10 = card["securityRequirements"];
  if (Array.isArray(v10)) {
    return v10.map((r) => {
      const map = isObject(r) && isObject(r["schemes"]) ? r["schemes"] : {};
      return new Map(Object.entries(map).map(([name, list]) => [name, scopesOf(isObject(list) ? list["list"] : [])]));
    });
  }
  const v03 = card["security"];
  if (Array.isArray(v03)) {
    return v03.map((r) => new Map(Object.entries(isObject(r) ? r : {}).map(([name, s]) => [name, scopesOf(s)])));
  }
  return [];
}

const scopesOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === "string") : []);

/** The one member of a v1.0 scheme: ProtoJSON {apiKeySecurityScheme: {...}} or a message's {scheme: {case, value}}. */
function v10Member(raw: Json): [string, Json] | undefined {
  const oneof = raw["scheme"];
  if (isObject(oneof) && typeof oneof["case"] === "string" && isObject(oneof["value"])) {
    return [oneof["case"], oneof["value"]];
  }
  const key = Object.keys(raw).find((k) => k.endsWith("SecurityScheme"));
  return key && isObject(raw[key]) ? [key, raw[key] as Json] : undefined;
}

function readScheme(name: string, raw: unknown): SecurityScheme {
  if (!isObject(raw)) throw new Error(`agent card: securitySchemes.${name} is not an object`);
  const member = v10Member(raw);
  const [kind, body] = member ?? [text(raw["type"]), raw];
  switch (kind) {
    case "apiKeySecurityScheme":
    case "apiKey":
      return apiKeyScheme(name, text(body["location"]) || text(body["in"]), text(body["name"]));
    case "httpAuthSecurityScheme":
    case "http":
      return { type: "http", name, scheme: text(body["scheme"]) };
    case "oauth2SecurityScheme":
    case "oauth2":
      return {
        type: "oauth2",
        name,
        tokenUrl: tokenUrlOf(body["flows"]),
        metadataUrl: optional(body, "oauth2MetadataUrl"),
      };
    case "openIdConnectSecurityScheme":
    case "openIdConnect":
      return { type: "openIdConnect", name, openIdConnectUrl: text(body["openIdConnectUrl"]) };
    case "mtlsSecurityScheme":
    case "mutualTLS":
      return { type: "mtls", name };
    default:
      throw new Error(`agent card: securitySchemes.${name} has no scheme type this runtime knows ("${kind}")`);
  }
}

const optional = (o: Json, key: string): string | undefined => (text(o[key]) === "" ? undefined : text(o[key]));

function apiKeyScheme(name: string, location: string, key: string): SecurityScheme {
  const where = location.toLowerCase();
  if (where !== "header" && where !== "query" && where !== "cookie") {
    throw new Error(
      `agent card: securitySchemes.${name}: API key location "${location}" is not header, query or cookie`,
    );
  }
  if (key === "") throw new Error(`agent card: securitySchemes.${name}: API key without a name`);
  return { type: "apiKey", name, location: where, key };
}

/** The client-credentials token URL of OAuthFlows: v1.0 oneof (JSON or message) or v0.3's members. */
function tokenUrlOf(flows: unknown): string | undefined {
  if (!isObject(flows)) return undefined;
  const oneof = flows["flow"];
  const cc = isObject(oneof) && oneof["case"] === "clientCredentials" ? oneof["value"] : flows["clientCredentials"];
  return isObject(cc) ? optional(cc, "tokenUrl") : undefined;
}
