/**
 * Identifier casing of generated names, protobuf-es's rule: an acronym is a
 * word, so a name that starts with one lowercases all of it.
 *
 *   A2AService            → a2aService
 *   APIKeySecurityScheme  → apiKeySecurityScheme
 *   OAuthFlows            → oAuthFlows
 *   Task                  → task
 */
export function lowerFirstWord(name: string): string {
  const acronym = /^([A-Z0-9]+)([A-Z][a-z].*)$/.exec(name);
  if (acronym) return acronym[1]!.toLowerCase() + acronym[2];
  if (/^[A-Z0-9]+$/.test(name)) return name.toLowerCase();
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * The exported name of a service's A2A definition: the service name and its
 * protocol version (`A2AService` at 1.0 → `A2AServiceV1_0`), so that modules
 * which use two versions, as the cross-version module does, import both
 * under their own names.
 */
export function definitionName(service: string, protocolVersion: string): string {
  return `${service}V${protocolVersion.replace(/\./g, "_")}`;
}
