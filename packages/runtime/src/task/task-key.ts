/**
 * One string key per (tenant, task id) for the in-memory store's maps: the
 * tenant's length, ":", the tenant, then the id. The length prefix keeps
 * ("a", "bc") and ("ab", "c") apart without escaping either part.
 */
export function taskKey(tenant: string, taskId: string): string {
  return `${tenant.length}:${tenant}${taskId}`;
}
