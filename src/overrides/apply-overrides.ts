/**
 * Applies override entries to the models of their proto package.
 *
 * Rules: an entry applies to the model whose package equals its file's
 * `package`; a file whose package no model has is skipped (the shipped files
 * cover every A2A version, a request may hold only one; a user file for a
 * package with no service is refused earlier, in select-services.ts). A
 * target must exist (see targets.ts). Two entries with the same target conflict, whichever
 * files they are in. After all entries, bindings whose first segment is the
 * tenant field become tenant variants.
 */
import type { ApiModel, CompatRule, OperationModel } from "../model/model-types.js";
import { buildBinding } from "../model/http-binding.js";
import { Problems } from "../generation-error.js";
import { apiTargets, operationTargets, type ApplyContext, type ExtraRoute } from "./targets.js";
import { describeAjvErrors, type OverrideEntry, type OverrideFile } from "./load-overrides.js";
import { validator } from "../assets.js";

export function applyOverrides(models: readonly ApiModel[], files: readonly OverrideFile[], problems: Problems): void {
  const byTarget = new Map<string, OverrideEntry>();
  for (const file of files) {
    const targets = models.filter((m) => m.package === file.package);
    if (targets.length === 0) continue;
    for (const entry of file.entries) {
      const key = `${file.package}:${entry.target}`;
      const other = byTarget.get(key);
      if (other) {
        problems.add(
          `${place(entry)}: conflicts with ${place(other)}: both target ${entry.target}`,
        );
        continue;
      }
      byTarget.set(key, entry);
      for (const model of targets) applyEntry(model, entry, problems);
    }
  }
  for (const model of models) markTenantVariants(model);
}

function place(e: OverrideEntry): string {
  return `${e.file}:${e.line}: entry "${e.id}"`;
}

function applyEntry(model: ApiModel, entry: OverrideEntry, problems: Problems): void {
  const parts = entry.target.split(".");
  let op: OperationModel | undefined;
  let kind;
  if (parts[0] === "api" && parts.length === 2) {
    kind = apiTargets[parts[1]!];
    if (!kind) {
      problems.add(`${place(entry)}: unknown target "${entry.target}"; api targets are ${Object.keys(apiTargets).map((k) => "api." + k).join(", ")}`);
      return;
    }
  } else if (parts[0] === "operations" && parts.length === 3) {
    op = model.operations.find((o) => o.name === parts[1]);
    if (!op) {
      problems.add(`${place(entry)}: target "${entry.target}" names no RPC "${parts[1]}" in ${model.service.fullName} (${model.protoFile})`);
      return;
    }
    kind = operationTargets[parts[2]!];
    if (!kind) {
      problems.add(`${place(entry)}: unknown target "${entry.target}"; operation targets are ${Object.keys(operationTargets).map((k) => `operations.<rpc>.${k}`).join(", ")}`);
      return;
    }
  } else if (parts[0] === "compat" && parts.length === 2) {
    applyCompat(model, entry, parts[1]!, problems);
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
    const summary = kind.apply(entry.value as never, ctx, op, entry.decision);
    model.overrides.push({
      file: entry.file,
      id: entry.id,
      target: entry.target,
      summary,
      source: entry.source,
      decision: entry.decision,
    });
  } catch (e) {
    problems.add(`${place(entry)}: ${(e as Error).message}`);
  }
}

/** compat.unpaired, or compat.<Message> of this package. */
function applyCompat(model: ApiModel, entry: OverrideEntry, name: string, problems: Problems): void {
  const compat = (model.compat ??= { otherPackage: undefined, explicit: new Map(), unpaired: { v10: {}, v03: {} } });
  const key = name === "unpaired" ? "compat.unpaired" : "compat.pair";
  const validate = validator(key as `compat.${string}`);
  if (!validate || !validate(entry.value)) {
    problems.add(`${place(entry)}: value for ${entry.target} is invalid: ${describeAjvErrors(validate?.errors)}`);
    return;
  }
  let summary: string;
  if (name === "unpaired") {
    const v = entry.value as { otherPackage: string; v10: Record<string, string>; v03: Record<string, string> };
    compat.otherPackage = v.otherPackage;
    compat.unpaired = { v10: v.v10, v03: v.v03 };
    summary = `counterparts in ${v.otherPackage}; no counterpart: ${[...Object.keys(v.v10), ...Object.keys(v.v03)].join(", ")}`;
  } else {
    const fullName = `${model.package}.${name}`;
    if (!model.messages.has(fullName)) {
      problems.add(`${place(entry)}: target "${entry.target}" names no message ${fullName}`);
      return;
    }
    const v = entry.value as { counterpart?: string; toV03?: Record<string, CompatRule>; toV10?: Record<string, CompatRule>; dialectFields?: Record<string, string> };
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
    summary = `${fullName} ↔ ${v.counterpart ?? "same name"}: ${Object.keys(v.toV03 ?? {}).length + Object.keys(v.toV10 ?? {}).length} field rules`;
  }
  model.overrides.push({ file: entry.file, id: entry.id, target: entry.target, summary, source: entry.source, decision: entry.decision });
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
