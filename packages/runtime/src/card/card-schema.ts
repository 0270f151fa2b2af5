/**
 * The v1.0 AgentCard's field table, as far as signing needs it (a2a.proto
 * v1.0.1, messages AgentCard … StringList): per message, each field's JSON
 * name, value type, shape and presence.
 *
 * Grammar of a field entry: `[]` list or `{}` map (string keys), then the
 * value type (`string`, `bool`, `struct` for google.protobuf.Struct, or a
 * message name), then `!` for `(google.api.field_behavior) = REQUIRED` or `?`
 * for the proto3 `optional` keyword. A singular message or Struct field, and a
 * oneof member, has explicit presence like `optional` (a set empty message is
 * still set). Messages whose fields all belong to one oneof say so.
 *
 * Hand-written from the proto rather than read from descriptors: the card
 * module must not depend on generated code, and the table is small.
 */

export type Presence = "required" | "explicit" | "implicit";

export interface CardField {
  readonly json: string;
  /** The proto field name (snake_case), which ProtoJSON parsers also accept. */
  readonly proto: string;
  readonly type: string;
  readonly shape: "single" | "list" | "map";
  readonly presence: Presence;
}

export interface CardMessage {
  readonly name: string;
  readonly fields: readonly CardField[];
  /** All fields are members of one oneof: at most one may be set. */
  readonly oneof: boolean;
}

const SCALARS = new Set(["string", "bool"]);

const TABLE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  AgentCard: {
    name: "string!",
    description: "string!",
    supportedInterfaces: "[]AgentInterface!",
    provider: "AgentProvider",
    version: "string!",
    documentationUrl: "string?",
    capabilities: "AgentCapabilities!",
    securitySchemes: "{}SecurityScheme",
    securityRequirements: "[]SecurityRequirement",
    defaultInputModes: "[]string!",
    defaultOutputModes: "[]string!",
    skills: "[]AgentSkill!",
    signatures: "[]AgentCardSignature",
    iconUrl: "string?",
  },
  AgentProvider: { url: "string!", organization: "string!" },
  AgentCapabilities: {
    streaming: "bool?",
    pushNotifications: "bool?",
    extensions: "[]AgentExtension",
    extendedAgentCard: "bool?",
  },
  AgentExtension: { uri: "string", description: "string", required: "bool", params: "struct" },
  AgentSkill: {
    id: "string!",
    name: "string!",
    description: "string!",
    tags: "[]string!",
    examples: "[]string",
    inputModes: "[]string",
    outputModes: "[]string",
    securityRequirements: "[]SecurityRequirement",
  },
  AgentInterface: { url: "string!", protocolBinding: "string!", tenant: "string", protocolVersion: "string!" },
  AgentCardSignature: { protected: "string!", signature: "string!", header: "struct" },
  SecurityScheme: {
    apiKeySecurityScheme: "APIKeySecurityScheme",
    httpAuthSecurityScheme: "HTTPAuthSecurityScheme",
    oauth2SecurityScheme: "OAuth2SecurityScheme",
    openIdConnectSecurityScheme: "OpenIdConnectSecurityScheme",
    mtlsSecurityScheme: "MutualTlsSecurityScheme",
  },
  APIKeySecurityScheme: { description: "string", location: "string!", name: "string!" },
  HTTPAuthSecurityScheme: { description: "string", scheme: "string!", bearerFormat: "string" },
  OAuth2SecurityScheme: { description: "string", flows: "OAuthFlows!", oauth2MetadataUrl: "string" },
  OpenIdConnectSecurityScheme: { description: "string", openIdConnectUrl: "string!" },
  MutualTlsSecurityScheme: { description: "string" },
  OAuthFlows: {
    authorizationCode: "AuthorizationCodeOAuthFlow",
    clientCredentials: "ClientCredentialsOAuthFlow",
    implicit: "ImplicitOAuthFlow",
    password: "PasswordOAuthFlow",
    deviceCode: "DeviceCodeOAuthFlow",
  },
  AuthorizationCodeOAuthFlow: {
    authorizationUrl: "string!",
    tokenUrl: "string!",
    refreshUrl: "string",
    scopes: "{}string!",
    pkceRequired: "bool",
  },
  ClientCredentialsOAuthFlow: { tokenUrl: "string!", refreshUrl: "string", scopes: "{}string!" },
  ImplicitOAuthFlow: { authorizationUrl: "string", refreshUrl: "string", scopes: "{}string" },
  PasswordOAuthFlow: { tokenUrl: "string", refreshUrl: "string", scopes: "{}string" },
  DeviceCodeOAuthFlow: {
    deviceAuthorizationUrl: "string!",
    tokenUrl: "string!",
    refreshUrl: "string",
    scopes: "{}string!",
  },
  SecurityRequirement: { schemes: "{}StringList" },
  StringList: { list: "[]string" },
};

const ONEOF_MESSAGES = new Set(["SecurityScheme", "OAuthFlows"]);

function parseField(json: string, entry: string, oneof: boolean): CardField {
  const m = /^(\[\]|\{\})?([A-Za-z0-9]+)([!?]?)$/.exec(entry);
  if (!m) throw new Error(`card-schema: bad entry ${json}: ${entry}`);
  const [, shapeMark, type = "", mark] = m;
  const shape = shapeMark === "[]" ? "list" : shapeMark === "{}" ? "map" : "single";
  const singularMessage = shape === "single" && !SCALARS.has(type);
  const presence: Presence =
    mark === "!" ? "required" : mark === "?" || oneof || singularMessage ? "explicit" : "implicit";
  const proto = json.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return { json, proto, type, shape, presence };
}

const MESSAGES: ReadonlyMap<string, CardMessage> = new Map(
  Object.entries(TABLE).map(([name, fields]) => {
    const oneof = ONEOF_MESSAGES.has(name);
    const parsed = Object.entries(fields).map(([json, entry]) => parseField(json, entry, oneof));
    return [name, { name, fields: parsed, oneof }];
  }),
);

/** The table entry of a card message; throws on a name the table lacks (a bug in the table). */
export function cardMessage(name: string): CardMessage {
  const message = MESSAGES.get(name);
  if (!message) throw new Error(`card-schema: no message ${name}`);
  return message;
}

/** Whether a field's value type is a scalar (string or bool). */
export function isScalar(type: string): boolean {
  return SCALARS.has(type);
}
