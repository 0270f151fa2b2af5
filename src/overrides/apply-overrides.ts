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
 *
 * An entry's value is checked against its target kind's schema here, except in the shipped files: those are
 * checked once, at build time (scripts/build-assets.js, by `targetKind`), so that a run does not load the
 * validators unless a file is given with overrides=.
 */
import type { ApiModel, AppliedOverride, OperationModel } from "../model/model-types.js";
import { buildBinding } from "../model/http-binding.js";
import { Problems } from "../generation-error.js";
import { targetTable, type ApplyContext, type ExtraRoute, type TargetScope } from "./targets.js";
import { describeAjvErrors, type OverrideEntry, type OverrideFile } from "./load-overrides.js";
import { place, planEntries, type PlannedEntry } from "./replaces.js";
import { validator } from "./override-assets.js";
import type { ErrorObject } from "ajv";

/**
 * @param leftOut the shipped files that default_overrides=false leaves out: an entry that replaces one of theirs
 *   is told so
 */
export function applyOverrides(
  models: readonly ApiModel[],
  files: readonly OverrideFile[],
  problems: Problems,
  leftOut: readonly OverrideFile[] = [],
  failed: readonly string[] = [],
): void {
  for (const pkg of new Set(files.map((f) => f.package))) {
    const targets = models.filter((m) => m.package === pkg);
    if (targets.length === 0) continue;
    const planned = planEntries(
      files.filter((f) => f.package === pkg),
      leftOut.filter((f) => f.package === pkg),
      problems,
      failed,
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

/** The problem of an entry whose value does not match its target kind's schema. */
export function invalidValue(entry: OverrideEntry, errors: readonly ErrorObject[] | null | undefined): string {
  return `${place(entry)}: value for ${entry.target} is invalid: ${describeAjvErrors(errors)}`;
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

/** A target resolved against the grammar: its scope, its kind's key and name, the RPC it names. */
interface Resolved {
  readonly scope: TargetScope;
  readonly key: string;
  readonly name: string;
  readonly op: OperationModel | undefined;
}

/**
 * api.<key> | operations.<Rpc>.<key> | compat.unpaired | compat.<Message> (key "pair") |
 * input.<Message>.<field> (key "rule"); a problem naming the entry otherwise.
 */
function resolveTarget(model: ApiModel, entry: OverrideEntry): Resolved | string {
  const parts = entry.target.split(".");
  const [scope, a, b] = parts;
  if (scope === "api" && parts.length === 2) {
    if (targetTable.api[a!]) return { scope, key: a!, name: "", op: undefined };
    const known = Object.keys(targetTable.api).map((k) => "api." + k);
    return `unknown target "${entry.target}"; api targets are ${known.join(", ")}`;
  }
  if (scope === "operations" && parts.length === 3) {
    const op = model.operations.find((o) => o.name === a);
    if (!op) return `target "${entry.target}" names no RPC "${a}" in ${model.service.fullName} (${model.protoFile})`;
    if (targetTable.operations[b!]) return { scope, key: b!, name: a!, op };
    const known = Object.keys(targetTable.operations).map((k) => `operations.<rpc>.${k}`);
    return `unknown target "${entry.target}"; operation targets are ${known.join(", ")}`;
  }
  if (scope === "compat" && parts.length === 2)
    return { scope, key: a === "unpaired" ? "unpaired" : "pair", name: a!, op: undefined };
  if (scope === "input" && parts.length === 3) return { scope, key: "rule", name: `${a}.${b}`, op: undefined };
  return `unknown target "${entry.target}"`;
}

/**
 * The kind a target names by the grammar alone (no RPC looked up): the `<scope>.<key>` of its value's schema.
 * Undefined when it names none; resolveTarget then says why, against the model.
 */
export function targetKind(target: string): { readonly scope: TargetScope; readonly key: string } | undefined {
  const parts = target.split(".");
  const [scope, a, b] = parts;
  if (scope === "api" && parts.length === 2 && targetTable.api[a!]) return { scope, key: a! };
  if (scope === "operations" && parts.length === 3 && targetTable.operations[b!]) return { scope, key: b! };
  if (scope === "compat" && parts.length === 2) return { scope, key: a === "unpaired" ? "unpaired" : "pair" };
  if (scope === "input" && parts.length === 3) return { scope, key: "rule" };
  return undefined;
}

function applyEntry(model: ApiModel, p: PlannedEntry, problems: Problems): void {
  const entry = p.entry;
  const target = resolveTarget(model, entry);
  if (typeof target === "string") {
    problems.add(`${place(entry)}: ${target}`);
    return;
  }
  // Shipped values were checked at build time against the same schema (see the header).
  const validate = p.shipped ? undefined : validator(`${target.scope}.${target.key}`)!;
  if (validate && !validate(entry.value)) {
    problems.add(invalidValue(entry, validate.errors));
    return;
  }
  const kind = targetTable[target.scope][target.key]!;
  const ctx: ApplyContext = {
    model,
    target: entry.target,
    name: target.name,
    entry: {
      place: `${entry.file}:${entry.line}: entry "${entry.id}"`,
      source: `${entry.source.document}, ${entry.source.section}`,
    },
    addRoute: (o, r, note) => addRoute(model, o, r, note, entry, problems),
  };
  try {
    model.overrides.push(applied(p, kind.apply(entry.value as never, ctx, target.op, entry.decision)));
  } catch (e) {
    problems.add(`${place(entry)}: ${(e as Error).message}`);
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
