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
