/**
 * What a server enforces from its agent card, per the version's capability
 * table (tables.capabilities, from the override files; spec S10 §3.3.4):
 *
 *   - an operation whose capability the card leaves false or out (the rule's
 *     `declaredBy`, e.g. capabilities.streaming) is refused with the rule's
 *     `undeclared` error, before the handler runs;
 *   - the extensions the card lists with `required: true` must be declared by
 *     the client; the server option `requiredExtensions` replaces them;
 *   - an extension the client declares is activated when the card lists it
 *     (or `requiredExtensions` names it); the response echoes the activated
 *     ones in the extensions header.
 *
 * The card is the JSON the server serves (`agentCard`), read by JSON name:
 * v1.0 ProtoJSON, or v0.3 a2a.json, whose names the v0.3 table uses. Without
 * a card, or in a version without a capability table, nothing is refused and
 * `requiredExtensions` alone is required and activated. The card provider is
 * called per call; what a card declares is read once per object it returns,
 * so returning the same object costs a lookup. A provider that takes no
 * argument is called without building the request's Headers.
 */
import type { A2aServiceDefinition, OperationInfo } from "../core/definition.js";
import { A2AError } from "../core/a2a-error.js";

export interface CardRules {
  /** The error refusing the operation, or undefined when the card declares what it needs. */
  refusal(op: OperationInfo): A2AError | undefined;
  /** Extension URIs a client must declare. */
  readonly required: readonly string[];
  /** Extension URIs the agent supports: those a call declares are activated and echoed. */
  readonly supported: readonly string[];
}

export interface CardRulesOptions {
  readonly agentCard?: (headers: Headers) => unknown;
  readonly requiredExtensions?: readonly string[];
}

/** The rules of each call: `headers` is called only when the card provider takes them. */
export type CardRulesOf = (headers: () => Headers) => CardRules;

const NO_HEADERS = new Headers();

export function cardRulesOf(def: A2aServiceDefinition, options: CardRulesOptions): CardRulesOf {
  const option = options.requiredExtensions;
  const fallback: CardRules = { refusal: () => undefined, required: option ?? [], supported: option ?? [] };
  const provider = options.agentCard;
  const table = def.capabilities;
  if (!provider || !table) return () => fallback;
  const read = new WeakMap<object, CardRules>();
  return (headers) => {
    const card = provider.length === 0 ? provider(NO_HEADERS) : provider(headers());
    if (typeof card !== "object" || card === null) return fallback;
    let rules = read.get(card);
    if (!rules) {
      rules = rulesOfCard(def, card, option);
      read.set(card, rules);
    }
    return rules;
  };
}

function rulesOfCard(def: A2aServiceDefinition, card: object, option: readonly string[] | undefined): CardRules {
  const table = def.capabilities!;
  const undeclared = new Set(table.rules.filter((r) => valueAt(card, r.declaredBy) !== true));
  const listed = valueAt(card, table.extensions);
  const extensions = (Array.isArray(listed) ? listed : []).filter(
    (x): x is { uri: string; required?: unknown } =>
      typeof x === "object" && x !== null && typeof (x as { uri?: unknown }).uri === "string",
  );
  const required = option ?? extensions.filter((x) => x.required === true).map((x) => x.uri);
  return {
    refusal(op) {
      const rule = op.capability;
      if (!rule || !undeclared.has(rule)) return undefined;
      return A2AError.named(
        rule.undeclared,
        `${op.name} needs ${rule.declaredBy}, which the agent card does not declare`,
      );
    },
    required,
    supported: [...new Set([...extensions.map((x) => x.uri), ...required])],
  };
}

/** The value at a dotted path of JSON names, or undefined. */
function valueAt(json: object, dotted: string): unknown {
  let at: unknown = json;
  for (const key of dotted.split(".")) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
