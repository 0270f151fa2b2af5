/**
 * Compat plans → the version pairs a cross-version module is written for.
 * A plan pairs the messages of two packages; a link adds the two service
 * models and pairs their operations: an older operation pairs with the newer
 * one of its canonical name (override operations.<rpc>.canonicalName), and
 * operations with no counterpart are left out (ListTasks has none in v0.3).
 * A plan whose older service is not in the request gets no link.
 */
import type { ApiModel, OperationModel } from "../model/model-types.js";
import type { CompatPlan } from "./compat-plan.js";

export interface OperationPair {
  readonly older: string;
  readonly newer: string;
}

/** What linking reads of a model: its package and its operations' names. */
type LinkedModel = Pick<ApiModel, "package"> & {
  readonly operations: readonly Pick<OperationModel, "name" | "canonicalName">[];
};

/** M: the model type the caller links (the plugin links the resolved models it emits). */
export interface VersionLink<M = ApiModel> {
  readonly plan: CompatPlan;
  readonly newer: M;
  readonly older: M;
  readonly operations: readonly OperationPair[];
}

export function linkVersions<M extends LinkedModel>(
  plans: readonly CompatPlan[],
  models: readonly M[],
): VersionLink<M>[] {
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
