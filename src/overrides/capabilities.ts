/**
 * Override target api.capabilities: the optional capabilities an agent card
 * declares, the operations that need each, and the errors a server answers
 * when the card leaves one undeclared or the handler has no method for it.
 *
 *   value = { card: <AgentCard full name>, extensions: Path, rules: Rule[] }
 *   Rule  = { declaredBy: Path, operations: RpcName[], undeclared: ErrorName, unimplemented: ErrorName }
 *   Path  = JSON name { "." JSON name }, read from `card`
 *
 * Checks: every path walks message fields of the model by JSON name; a
 * `declaredBy` ends at a bool, `extensions` at a repeated message with a
 * string `uri` and a bool `required`; every operation is an RPC of the
 * service and in one rule at most; every error is in api.errors or
 * api.standardErrors (entries before this one).
 */
import type { ApiModel, CapabilitiesModel, FieldModel } from "../model/model-types.js";

const str = { type: "string", minLength: 1, maxLength: 4000 } as const;
const path = { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$" } as const;
const obj = (properties: Record<string, unknown>) =>
  ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false }) as const;

export const capabilitiesSchema = obj({
  card: str,
  extensions: path,
  rules: {
    type: "array",
    minItems: 1,
    items: obj({
      declaredBy: path,
      operations: { type: "array", items: str, minItems: 1 },
      undeclared: str,
      unimplemented: str,
    }),
  },
});

/** Checks the value against the model and stores it; returns the docs summary, or throws the problems found. */
export function applyCapabilities(v: CapabilitiesModel, model: ApiModel): string {
  const problems: string[] = [];
  if (!model.messages.has(v.card)) problems.push(`no message ${v.card} in the request`);
  else {
    const ext = fieldAt(model, v.card, v.extensions, problems);
    const member = (name: string) => model.messages.get(ext?.type ?? "")?.fields.find((f) => f.jsonName === name);
    if (ext && (!ext.repeated || member("uri")?.type !== "string" || member("required")?.type !== "bool")) {
      problems.push(`${v.extensions} is not a list of messages with a string uri and a bool required`);
    }
  }
  const errors = new Set([...model.errors.map((e) => e.name), ...model.standardErrors.map((e) => e.name)]);
  const seen = new Set<string>();
  for (const r of v.rules) {
    const flag = model.messages.has(v.card) ? fieldAt(model, v.card, r.declaredBy, problems) : undefined;
    if (flag && (flag.type !== "bool" || flag.repeated)) problems.push(`${r.declaredBy} is not a bool`);
    for (const op of r.operations) {
      if (!model.operations.some((o) => o.name === op))
        problems.push(`${op} is not an RPC of ${model.service.fullName}`);
      if (seen.has(op)) problems.push(`${op} is in two rules`);
      seen.add(op);
    }
    for (const e of [r.undeclared, r.unimplemented]) {
      if (!errors.has(e))
        problems.push(`${e} is in neither api.errors nor api.standardErrors (entries before this one)`);
    }
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
  model.capabilities = v;
  return v.rules
    .map((r) => `\`${r.declaredBy}\` (${r.operations.join(", ")}): off ${r.undeclared}, no method ${r.unimplemented}`)
    .concat(`extensions from \`${v.extensions}\``)
    .join("; ");
}

/** The field a dotted path of JSON names reaches from a message, or undefined after reporting why not. */
function fieldAt(model: ApiModel, message: string, dotted: string, problems: string[]): FieldModel | undefined {
  let at = model.messages.get(message);
  let field: FieldModel | undefined;
  for (const name of dotted.split(".")) {
    field = at?.fields.find((f) => f.jsonName === name);
    if (!field) {
      problems.push(`${dotted}: ${at?.fullName ?? "a scalar"} has no field with JSON name ${name}`);
      return undefined;
    }
    at = field.kind === "message" ? model.messages.get(field.type) : undefined;
  }
  return field;
}
