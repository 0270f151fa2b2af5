/**
 * The example agent's security, from the environment. Neither variable set:
 * the agent stays open (no security on its card, no extended card).
 *
 *   API_KEYS=<file>    a file of lines `<key> <principal-id>` (blank lines and
 *                      lines starting with # are skipped): the card declares
 *                      scheme `apiKey`, an API key in the header X-API-Key,
 *                      and requires it
 *   OIDC_ISSUER=<url>  with OIDC_AUDIENCE=<audience>: the card declares scheme
 *                      `oidc`, OpenID Connect at <url>/.well-known/openid-
 *                      configuration, and requires a bearer JWT access token
 *                      from that issuer for that audience
 *
 * Both: either one admits a call. A file that cannot be read, a line that is
 * not two words, a key given twice, or OIDC_ISSUER without OIDC_AUDIENCE
 * (or the reverse) is one line naming the variable (and file and line).
 */
import { readFileSync } from "node:fs";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { apiKeyTable, jwtBearer, type SchemeVerifier } from "@protoc-gen-a2a/runtime/auth";
import type { SecurityRequirementSchema, SecuritySchemeSchema } from "../../generated-samples/v1.0.1/a2a_pb.js";

/** The card's security fields, as AgentCard init takes them, and their verifiers. */
export interface AgentSecurity {
  readonly securitySchemes: Record<string, MessageInitShape<typeof SecuritySchemeSchema>>;
  readonly securityRequirements: MessageInitShape<typeof SecurityRequirementSchema>[];
  readonly verifiers: Record<string, SchemeVerifier>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The security the environment asks for; undefined: none; or the line that says what is wrong. */
export function securityFromEnv(env: Env): { security: AgentSecurity | undefined } | { problem: string } {
  const security: AgentSecurity = { securitySchemes: {}, securityRequirements: [], verifiers: {} };
  const keysFile = env["API_KEYS"];
  if (keysFile) {
    const keys = readKeys(keysFile);
    if ("problem" in keys) return keys;
    security.securitySchemes["apiKey"] = {
      scheme: { case: "apiKeySecurityScheme", value: { location: "header", name: "X-API-Key" } },
    };
    security.securityRequirements.push({ schemes: { apiKey: { list: [] } } });
    security.verifiers["apiKey"] = apiKeyTable(keys.entries);
  }
  const issuer = env["OIDC_ISSUER"];
  const audience = env["OIDC_AUDIENCE"];
  if (Boolean(issuer) !== Boolean(audience)) {
    return {
      problem: issuer ? "OIDC_ISSUER is set without OIDC_AUDIENCE" : "OIDC_AUDIENCE is set without OIDC_ISSUER",
    };
  }
  if (issuer && audience) {
    const openIdConnectUrl = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    security.securitySchemes["oidc"] = {
      scheme: { case: "openIdConnectSecurityScheme", value: { openIdConnectUrl } },
    };
    security.securityRequirements.push({ schemes: { oidc: { list: [] } } });
    security.verifiers["oidc"] = jwtBearer({ issuer, audience, discoveryUrl: openIdConnectUrl });
  }
  return { security: security.securityRequirements.length > 0 ? security : undefined };
}

function readKeys(path: string): { entries: [string, string][] } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return { problem: `API_KEYS=${JSON.stringify(path)} cannot be read (${(e as NodeJS.ErrnoException).code})` };
  }
  const entries: [string, string][] = [];
  const seen = new Set<string>();
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const words = line.split(/\s+/);
    const at = `API_KEYS ${path}:${i + 1}`;
    if (words.length !== 2) return { problem: `${at}: expected "<key> <principal-id>", found ${words.length} words` };
    const [key, id] = words as [string, string];
    if (seen.has(key)) return { problem: `${at}: the key of principal ${id} is given twice` };
    seen.add(key);
    entries.push([key, id]);
  }
  if (entries.length === 0) return { problem: `API_KEYS ${path}: no keys` };
  return { entries };
}
