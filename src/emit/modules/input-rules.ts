/**
 * The input rules of a version (ProtocolTables.inputRules, checked by the
 * runtime's validate.ts before a handler runs):
 *
 *   messages   those a request can hold: each operation's input, then the
 *              message fields of those, transitively (google.protobuf.* left out)
 *   rules      each field marked `(google.api.field_behavior) = REQUIRED`, then
 *              the `input.<Message>.<field>` override entries, which add a
 *              rule, replace it (minItems, waivedFrom) or remove it
 *
 * Responses are never checked, so REQUIRED fields of messages only a response
 * holds are left out. Messages and rules keep the descriptors' order.
 */
import type { InputRule } from "../../model/model-types.js";
import type { ResolvedApi } from "../../model/resolve-api.js";

export function inputRules(m: ResolvedApi): Record<string, InputRule[]> {
  const out: Record<string, InputRule[]> = {};
  for (const name of requestMessages(m)) {
    const msg = m.messages.get(name)!;
    const overrides = m.inputOverrides.get(name);
    const rules = new Map<string, InputRule>();
    for (const f of msg.fields) if (f.required && !f.oneof) rules.set(f.name, { field: f.name });
    for (const [field, rule] of overrides ?? []) {
      if (rule) rules.set(field, rule);
      else rules.delete(field);
    }
    if (rules.size > 0) out[name] = [...rules.values()];
  }
  return out;
}

/** The messages of the package a request can hold, in the order they are reached. */
function requestMessages(m: ResolvedApi): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name) || !name.startsWith(m.package + ".")) return;
    const msg = m.messages.get(name);
    if (!msg) return;
    seen.add(name);
    for (const f of msg.fields) if (f.kind === "message") visit(f.type);
  };
  for (const op of m.operations) visit(op.input);
  return [...seen];
}
