/**
 * Compat plans → the version pairs a cross-version module is written for.
 * A plan pairs the messages of two packages; a link adds the two service
 * models and pairs their operations: an older operation pairs with the newer
 * one of its canonical name (override operations.<rpc>.canonicalName), and
 * operations with no counterpart are left out (ListTasks has none in v0.3).
 * A plan whose older service is not in the request gets no link.
 */
import type { ApiModel } from "../model/model-types.js";
import type { CompatPlan } from "./compat-plan.js";

export interface OperationPair {
  readonly older: string;
  readonly newer: string;
}

export interface VersionLink {
  readonly plan: CompatPlan;
  readonly newer: ApiModel;
  readonly older: ApiModel;
  readonly operations: readonly OperationPair[];
}

export function linkVersions(plans: readonly CompatPlan[], models: readonly ApiModel[]): VersionLink[] {
  return plans.flatMap((plan) => {
    const newer = models.find((m) => m.package === plan.newer);
    const older = models.find((m) => m.package === plan.older);
    if (!newer || !older) return [];
    const operations = older.operations
      .filter((o) => newer.operations.some((n) => n.name === o.canonicalName))
      .map((o) => ({ older: o.name, newer: o.canonicalName }));
    return [{ plan, newer, older, operations }];
  });
}
