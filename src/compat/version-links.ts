/**
 * Compat plans → the version pairs a cross-version module is written for.
 * A plan pairs the messages of two packages; a link adds the two service
 * models and pairs their operations: an older operation pairs with the newer
 * one of its canonical name (override operations.<rpc>.canonicalName), and
 * operations with no counterpart are left out (ListTasks has none in v0.3).
 * A plan whose older service is not in the request gets no link.
 *
 * Left out only when declared: an operation with no counterpart must be named in the other version's
 * api.absentOperations (as v0.3's names ListTasks), as a message with none must be in compat.unpaired.
 * Otherwise an rpc that a fork adds to one version would leave the bridge without a word.
 */
import type { Problems } from "../generation-error.js";
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

/** A problem for each operation of a link with no counterpart that the other version does not declare absent. */
export function checkUnpairedOperations(links: readonly VersionLink[], problems: Problems): void {
  for (const { newer, older, operations } of links) {
    const sides = [
      { m: newer, other: older, paired: new Set(operations.map((p) => p.newer)), isNewer: true },
      { m: older, other: newer, paired: new Set(operations.map((p) => p.older)), isNewer: false },
    ];
    for (const { m, other, paired, isNewer } of sides) {
      const declared = (o: OperationModel) =>
        other.absentOperations.some((a) => a.name === o.name || a.name === o.canonicalName);
      for (const o of m.operations.filter((o) => !paired.has(o.name) && !declared(o))) {
        // The older rpc pairs by its canonical name: say which one the newer version lacks.
        const lacks = isNewer ? "" : ` (no rpc ${o.canonicalName})`;
        const pair = isNewer
          ? "an older rpc with it (operations.<rpc>.canonicalName)"
          : `it (operations.${o.name}.canonicalName)`;
        const rpc = `${m.protoFile}: rpc ${m.service.fullName}.${o.name}`;
        problems.add(
          `${rpc} has no counterpart in ${other.service.fullName}${lacks}, so the version bridge leaves it out: ` +
            `name it in the api.absentOperations entry of package ${other.package}, or pair ${pair}`,
        );
      }
    }
  }
}
