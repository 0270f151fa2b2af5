/**
 * Wrapped requests: an older request message that holds the older message of
 * a pair in one field, where the newer operation takes the newer message
 * itself (v0.3 Create is {parent, config_id, config}, v1.0 Create the config).
 * A compat entry declares it on the pair (`wrappedBy`), and this stage checks
 * it and turns it into the plan's form.
 *
 * Rule: `field` is a singular field of the wrapper whose type is the pair's
 * older message; every other field of the wrapper is a string spelled by
 * `names`, a pattern over string fields of the newer message:
 *
 *   pattern  = { literal | "{" newer-field "}" }
 *   literal  = any characters but "{" and "}"
 *
 * with at least one variable, and no two variables side by side (they could
 * not be told apart). Toward the newer version the wrapper's fields are read
 * through their patterns and fill the newer fields the wrapped message left
 * empty; toward the older version they are written from the newer fields.
 */
import type { Problems } from "../generation-error.js";
import type { CompatWrapper, MessageModel } from "../model/model-types.js";

/** A pattern, parsed: its text pieces and the newer fields between them (`pieces.length === fields.length + 1`). */
export interface NamePattern {
  /** The older wrapper field it spells. */
  readonly field: string;
  readonly pieces: readonly string[];
  readonly fields: readonly string[];
}

export interface PlanWrapper {
  readonly message: string;
  readonly field: string;
  readonly names: readonly NamePattern[];
}

/** The checked wrapper of a pair, or undefined (with problems) when it does not hold. */
export function planWrapper(
  w: CompatWrapper,
  pair: { readonly newer: MessageModel; readonly older: MessageModel },
  messages: ReadonlyMap<string, MessageModel>,
  place: string,
  problems: Problems,
): PlanWrapper | undefined {
  const at = `${place} (wrappedBy)`;
  const wrapper = messages.get(w.message);
  if (!wrapper) {
    problems.add(`${at}: no message ${w.message} in the request`);
    return undefined;
  }
  const holder = wrapper.fields.find((f) => f.name === w.field);
  if (holder?.kind !== "message" || holder.repeated || holder.type !== pair.older.fullName)
    problems.add(`${at}: ${w.message}.${w.field} must be a singular field of type ${pair.older.fullName}`);
  const names: NamePattern[] = [];
  for (const f of wrapper.fields) {
    if (f.name === w.field) continue;
    const pattern = w.names[f.name];
    if (pattern === undefined) problems.add(`${at}: ${w.message}.${f.name} has no pattern in names`);
    else if (f.kind !== "scalar" || f.type !== "string" || f.repeated)
      problems.add(`${at}: ${w.message}.${f.name} is not a string field; names spell strings`);
    else {
      const parsed = parsePattern(pattern, pair.newer, (why) => problems.add(`${at}: names.${f.name}: ${why}`));
      if (parsed) names.push({ field: f.name, ...parsed });
    }
  }
  for (const name of Object.keys(w.names)) {
    if (!wrapper.fields.some((f) => f.name === name)) problems.add(`${at}: ${w.message} has no field "${name}"`);
  }
  return { message: w.message, field: w.field, names };
}

function parsePattern(
  pattern: string,
  newer: MessageModel,
  problem: (why: string) => void,
): Omit<NamePattern, "field"> | undefined {
  const pieces: string[] = [];
  const fields: string[] = [];
  const re = /\{([^{}]*)\}/g;
  let last = 0;
  for (let m = re.exec(pattern); m !== null; m = re.exec(pattern)) {
    const name = m[1]!;
    const field = newer.fields.find((f) => f.name === name);
    if (field?.kind !== "scalar" || field.type !== "string" || field.repeated) {
      problem(`"{${name}}" names no string field of ${newer.fullName}`);
      return undefined;
    }
    pieces.push(pattern.slice(last, m.index));
    fields.push(name);
    last = m.index + m[0].length;
  }
  pieces.push(pattern.slice(last));
  const bad = pieces.find((p) => /[{}]/.test(p));
  if (bad !== undefined) problem(`"${pattern}" has an unmatched brace`);
  else if (fields.length === 0) problem(`"${pattern}" names no field`);
  else if (pieces.slice(1, -1).some((p) => p === "")) problem(`"${pattern}" has two variables side by side`);
  else return { pieces, fields };
  return undefined;
}
