/**
 * Applies override entries to the models of their proto package.
 *
 * Rules: an entry applies to the model whose package equals its file's
 * `package`; a file whose package no model has is skipped (the shipped files
 * cover every A2A version, a request may hold only one; a user file for a
 * package with no service is refused earlier, in select-services.ts). A
 * target must exist (see targets.ts). An entry with `replaces:` takes the
 * place of an entry of an earlier file (replaces.ts). Two entries with the
 * same target conflict, whichever files they are in. After all entries,
 * bindings whose first segment is the tenant field become tenant variants.
 */
import type { ApiModel, AppliedOverride, CompatRule, OperationModel } from "../model/model-types.js";
import { buildBinding } from "../model/http-binding.js";
import { Problems } from "../generation-error.js";
import {
  apiTargets,
  applyInputRule,
  operationTargets,
  type ApplyContext,
  type ExtraRoute,
  type InputRuleValue,
} from "./targets.js";
import { describeAjvErrors, type OverrideEntry, type OverrideFile } from "./load-overrides.js";
import { place, planEntries, type PlannedEntry } from "./replaces.js";
import { validator } from "./override-assets.js";

/**
 * @param leftOut the shipped files that default_overrides=false leaves out: an entry that replaces one of theirs
 *   is told so
 */
export function applyOverrides(
  models: readonly ApiModel[],
  files: readonly OverrideFile[],
  problems: Problems,
  leftOut: readonly OverrideFile[] = [],
): void {
  for (const pkg of new Set(files.map((f) => f.package))) {
    const targets = models.filter((m) => m.package === pkg);
    if (targets.length === 0) continue;
    const planned = planEntries(
      files.filter((f) => f.package === pkg),
      leftOut.filter((f) => f.package === pkg),
      problems,
    );
    const byTarget = new Map<string, PlannedEntry>();
    for (const p of planned) {
      const other = byTarget.get(p.entry.target);
      if (other) {
        problems.add(conflict(p, other));
        continue;
      }
      byTarget.set(p.entry.target, p);
      for (const model of targets) applyEntry(model, p, problems);
    }
  }
  for (const model of models) markTenantVariants(model);
}

/** Two entries with the same target; across files, the later one could replace the other. */
function conflict(p: PlannedEntry, other: PlannedEntry): string {
  const message = `${place(p.entry)}: conflicts with ${place(other.entry)}: both target ${p.entry.target}`;
  if (p.entry.file === other.entry.file || p.shipped || p.entry.replaces !== undefined) return message;
  const what = other.shipped ? "the shipped entry" : "that entry";
  return `${message}; to amend ${what}, add "replaces: ${other.entry.id}" to entry "${p.entry.id}"`;
}

/** The row of the overrides table. */
function applied(p: PlannedEntry, summary: string): AppliedOverride {
  const { file, id, target, source, decision } = p.entry;
  const r = p.replaced;
  const replaces = r && { id: r.entry.id, file: r.entry.file, line: r.entry.line, shipped: r.shipped };
  return { file, id, target, summary, source, decision, replaces };
}

function applyEntry(model: ApiModel, p: PlannedEntry, problems: Problems): void {
  const entry = p.entry;
  const parts = entry.target.split(".");
  let op: OperationModel | undefined;
  let kind: (typeof apiTargets)[string] | undefined;
  if (parts[0] === "api" && parts.length === 2) {
    kind = apiTargets[parts[1]!];
    if (!kind) {
      problems.add(
        `${place(entry)}: unknown target "${entry.target}"; api targets are ${Object.keys(apiTargets)
          .map((k) => "api." + k)
          .join(", ")}`,
      );
      return;
    }
  } else if (parts[0] === "operations" && parts.length === 3) {
    op = model.operations.find((o) => o.name === parts[1]);
    if (!op) {
      problems.add(
        `${place(entry)}: target "${entry.target}" names no RPC "${parts[1]}" ` +
          `in ${model.service.fullName} (${model.protoFile})`,
      );
      return;
    }
    kind = operationTargets[parts[2]!];
    if (!kind) {
      problems.add(
        `${place(entry)}: unknown target "${entry.target}"; operation targets are ${Object.keys(operationTargets)
          .map((k) => `operations.<rpc>.${k}`)
          .join(", ")}`,
      );
      return;
    }
  } else if (parts[0] === "compat" && parts.length === 2) {
    applyCompat(model, p, parts[1]!, problems);
    return;
  } else if (parts[0] === "input" && parts.length === 3) {
    applyInput(model, p, parts[1]!, parts[2]!, problems);
    return;
  } else {
    problems.add(`${place(entry)}: unknown target "${entry.target}"`);
    return;
  }
  const validate = validator(`${parts[0] as "api" | "operations"}.${parts[parts.length - 1]!}`)!;
  if (!validate(entry.value)) {
    problems.add(`${place(entry)}: value for ${entry.target} is invalid: ${describeAjvErrors(validate.errors)}`);
    return;
  }
  const ctx: ApplyContext = { model, addRoute: (o, r, note) => addRoute(model, o, r, note, entry, problems) };
  try {
    model.overrides.push(applied(p, kind.apply(entry.value as never, ctx, op, entry.decision)));
  } catch (e) {
    problems.add(`${place(entry)}: ${(e as Error).message}`);
  }
}

/** compat.unpaired, or compat.<Message> of this package. */
function applyCompat(model: ApiModel, p: PlannedEntry, name: string, problems: Problems): void {
  const entry = p.entry;
  model.compat ??= { otherPackage: undefined, explicit: new Map(), unpaired: { v10: {}, v03: {} } };
  const compat = model.compat;
  const key = name === "unpaired" ? "compat.unpaired" : "compat.pair";
  const validate = validator(key as `compat.${string}`);
  if (!validate?.(entry.value)) {
    problems.add(`${place(entry)}: value for ${entry.target} is invalid: ${describeAjvErrors(validate?.errors)}`);
    return;
  }
  let summary: string;
  if (name === "unpaired") {
    const v = entry.value as { otherPackage: string; v10: Record<string, string>; v03: Record<string, string> };
    compat.otherPackage = v.otherPackage;
    compat.unpaired = { v10: v.v10, v03: v.v03 };
    const unpaired = [...Object.keys(v.v10), ...Object.keys(v.v03)].join(", ");
    summary = `counterparts in ${v.otherPackage}; no counterpart: ${unpaired}`;
  } else {
    const fullName = `${model.package}.${name}`;
    if (!model.messages.has(fullName)) {
      problems.add(`${place(entry)}: target "${entry.target}" names no message ${fullName}`);
      return;
    }
    const v = entry.value as {
      counterpart?: string;
      toV03?: Record<string, CompatRule>;
      toV10?: Record<string, CompatRule>;
      dialectFields?: Record<string, string>;
    };
    compat.explicit.set(fullName, {
      v10: fullName,
      v03: v.counterpart,
      toV03: v.toV03 ?? {},
      toV10: v.toV10 ?? {},
      dialectFields: v.dialectFields ?? {},
      entry: `${entry.file}:${entry.line}: entry "${entry.id}"`,
      source: `${entry.source.document}, ${entry.source.section}`,
      decision: entry.decision,
    });
    const rules = Object.keys(v.toV03 ?? {}).length + Object.keys(v.toV10 ?? {}).length;
    summary = `${fullName} ↔ ${v.counterpart ?? "same name"}: ${rules} field rules`;
  }
  model.overrides.push(applied(p, summary));
}

/** input.<Message>.<field> of this package. */
function applyInput(model: ApiModel, p: PlannedEntry, message: string, field: string, problems: Problems): void {
  const entry = p.entry;
  const validate = validator("input.rule");
  if (!validate?.(entry.value)) {
    problems.add(`${place(entry)}: value for ${entry.target} is invalid: ${describeAjvErrors(validate?.errors)}`);
    return;
  }
  try {
    model.overrides.push(applied(p, applyInputRule(model, message, field, entry.value as InputRuleValue)));
  } catch (e) {
    problems.add(`${place(entry)}: target "${entry.target}": ${(e as Error).message}`);
  }
}

function addRoute(
  model: ApiModel,
  op: OperationModel,
  r: ExtraRoute,
  note: string,
  entry: OverrideEntry,
  problems: Problems,
): void {
  const local = new Problems();
  const binding = buildBinding(
    { method: r.method, path: r.template, body: r.body ?? "", responseBody: "", nestedBindings: 0 },
    "override",
    {
      place: `${place(entry)} (${model.protoFile}: rpc ${op.name})`,
      input: model.messages.get(op.input)!,
      output: model.messages.get(op.output)!,
      messages: model.messages,
      problems: local,
    },
  );
  for (const p of local.all) problems.add(p);
  if (binding) op.bindings.push({ ...binding, note });
}

function markTenantVariants(model: ApiModel): void {
  const tenant = model.tenantField;
  if (!tenant) return;
  for (const op of model.operations) {
    op.bindings = op.bindings.map((b) => ({
      ...b,
      tenantVariant: b.variables.some((v) => v.start === 0 && v.field === tenant),
    }));
  }
}
