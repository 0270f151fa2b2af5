/**
 * Converts messages between two protocol versions by a generated plan
 * (compat-plan.ts: one step per source field, checked for coverage at
 * generation). Steps: copy (scalars; enums by value name, else by number),
 * message (converted as its pair, in lists and maps too), transform (named,
 * compat-transforms.ts; run once per message even if several fields name it),
 * moved (done by the owning message's transform), lossy (a set value is
 * reported, never dropped silently).
 *
 * Enums go by value name, else by number (TASK_STATE_CANCELLED ↔ CANCELED).
 * Toward the newer version a number the older enum lacks is refused (CompatJsonError: a request that carries it is
 * InvalidParams); toward the older version a value the older enum lacks is
 * reported and written as the value 0.
 */
import {
  create,
  createRegistry,
  isFieldSet,
  type DescEnum,
  type DescField,
  type DescFile,
  type DescMessage,
  type Message,
} from "@bufbuild/protobuf";
import { compatTransform, type TransformContext } from "./compat-transforms.js";
import { enumOf, readField, setField } from "../message-fields.js";
import { CompatJsonError } from "./compat-json.js";
import type { Converter, Direction, Loss } from "./conversion-types.js";

export type PlanStep =
  | { readonly from: string; readonly op: "copy" | "message" | "moved"; readonly to: string }
  | { readonly from: string; readonly op: "transform"; readonly transform: string }
  | { readonly from: string; readonly op: "lossy"; readonly reason: string };

export interface CompatPlanData {
  readonly newer: string;
  readonly older: string;
  readonly pairs: readonly {
    readonly newer: string;
    readonly older: string;
    readonly toOlder: readonly PlanStep[];
    readonly toNewer: readonly PlanStep[];
  }[];
}

export type { Converter, Direction, Loss } from "./conversion-types.js";

interface CompiledStep {
  readonly step: PlanStep;
  readonly f: DescField;
  /** Target field, for copy and message steps. */
  readonly t: DescField | undefined;
  /** Enums on both sides whose values are mapped by name, for copy steps. */
  readonly enums: readonly [DescEnum, DescEnum] | undefined;
}

interface CompiledRoute {
  readonly outDesc: DescMessage;
  readonly fieldSteps: readonly CompiledStep[];
  readonly transforms: readonly string[];
  readonly toNewer: boolean;
}

export function createConverter(plan: CompatPlanData, files: readonly DescFile[]): Converter {
  const registry = createRegistry(...files);
  const route = new Map<string, { target: string; steps: readonly PlanStep[] }>();
  for (const p of plan.pairs) {
    route.set(p.newer, { target: p.older, steps: p.toOlder });
    route.set(p.older, { target: p.newer, steps: p.toNewer });
  }
  const desc = (name: string) => {
    const d = registry.getMessage(name);
    if (!d) throw new Error(`compat: no message ${name} in the registry`);
    return d;
  };
  // Each route resolved to descriptors once, on first use.
  const compiled = new Map<string, CompiledRoute>();
  const compile = (srcDesc: DescMessage): CompiledRoute => {
    let c = compiled.get(srcDesc.typeName);
    if (c) return c;
    const r = route.get(srcDesc.typeName);
    if (!r) throw new Error(`compat: ${srcDesc.typeName} has no counterpart`);
    const outDesc = desc(r.target);
    const fieldSteps: CompiledStep[] = [];
    const transforms: string[] = [];
    for (const step of r.steps) {
      if (step.op === "transform") {
        if (!transforms.includes(step.transform)) transforms.push(step.transform);
        continue;
      }
      const f = srcDesc.fields.find((x) => x.name === step.from)!;
      const t =
        step.op === "copy" || step.op === "message" ? outDesc.fields.find((x) => x.name === step.to)! : undefined;
      const ef = enumOf(f);
      const et = t && enumOf(t);
      fieldSteps.push({ step, f, t, enums: ef && et ? [ef, et] : undefined });
    }
    c = { outDesc, fieldSteps, transforms, toNewer: !srcDesc.typeName.startsWith(plan.newer + ".") };
    compiled.set(srcDesc.typeName, c);
    return c;
  };

  function convertMessage(src: Message, srcDesc: DescMessage, path: string, lost: Loss[]): Message {
    const c = compile(srcDesc);
    const out = create(c.outDesc) as Message & Record<string, unknown>;
    for (const { step, f, t, enums } of c.fieldSteps) {
      if (!isFieldSet(src, f)) continue;
      if (step.op === "moved") continue;
      if (step.op === "lossy") {
        lost.push({ path: join(path, f.name), reason: step.reason });
        continue;
      }
      setField(out, t!, convertValue(readField(src, f), f, enums, path, lost, c.toNewer));
    }
    if (c.transforms.length > 0) {
      // Fields first, then transforms, which may complete what the fields filled (e.g. card capabilities).
      const ctx: TransformContext = {
        src: src as Message & Record<string, unknown>,
        srcDesc,
        out,
        outDesc: c.outDesc,
        toNewer: c.toNewer,
        path,
        lose: (field, reason) => lost.push({ path: join(path, field), reason }),
        refuse: (field, what, reason) => {
          throw new CompatJsonError(join(path, field), what, undefined, `(${reason})`);
        },
        enumValue: (field, n, from, to) =>
          convertEnum(n, from, to, c.toNewer, join(path, field), `${srcDesc.typeName}.${field}`, lost),
        convert: (m, at) => convertMessage(m, desc(m.$typeName), join(path, at), lost),
        newer: plan.newer,
        older: plan.older,
      };
      for (const name of c.transforms) compatTransform(name)(ctx);
    }
    return out;
  }

  function convertValue(
    v: unknown,
    f: DescField,
    enums: readonly [DescEnum, DescEnum] | undefined,
    parent: string,
    lost: Loss[],
    toNewer: boolean,
  ): unknown {
    const one = (x: unknown, at: () => string) =>
      x !== null && typeof x === "object" && "$typeName" in (x as object) && route.has((x as Message).$typeName)
        ? convertMessage(x as Message, desc((x as Message).$typeName), at(), lost)
        : typeof x === "number" && enums
          ? convertEnum(x, enums[0], enums[1], toNewer, at(), `${f.parent.typeName}.${f.name}`, lost)
          : x;
    if (f.fieldKind === "list") return (v as unknown[]).map((x, i) => one(x, () => `${join(parent, f.name)}[${i}]`));
    if (f.fieldKind === "map")
      return Object.fromEntries(
        Object.entries(v as object).map(([k, x]) => [k, one(x, () => `${join(parent, f.name)}.${k}`)]),
      );
    return one(v, () => join(parent, f.name));
  }

  return {
    registry,
    counterpart: (name) => route.get(name)?.target,
    convert<T extends Message>(message: Message, direction: Direction, onLoss?: (loss: Loss) => void) {
      // Well-known types (google.protobuf.Empty, …) are the same in both versions.
      if (message.$typeName.startsWith("google.protobuf.")) return { message: message as T, lost: [] };
      const srcDesc = desc(message.$typeName);
      const wantNewer = direction === "toNewer";
      if (srcDesc.typeName.startsWith(plan.newer + ".") === wantNewer)
        throw new Error(`compat: ${srcDesc.typeName} is already on that side`);
      const lost: Loss[] = [];
      const out = convertMessage(message, srcDesc, "", lost) as T;
      if (onLoss) for (const l of lost) onLoss(l);
      return { message: out, lost };
    },
  };
}

const join = (path: string, field: string) =>
  path === "" ? field : field === "" ? path : field.startsWith("[") ? path + field : `${path}.${field}`;

/** An enum value by name (without the type prefix), else by number. */
export function enumValue(n: number, from: DescEnum, to: DescEnum): number {
  const v = from.values.find((x) => x.number === n);
  const byName = v && to.values.find((x) => x.localName === v.localName);
  return byName ? byName.number : n;
}

/**
 * An enum value by name, else by number; one the source enum lacks, or the target has no value for, is
 * refused toward the newer version and, toward the older one, reported and written as the value 0.
 */
function convertEnum(
  n: number,
  from: DescEnum,
  to: DescEnum,
  toNewer: boolean,
  path: string,
  what: string,
  lost: Loss[],
): number {
  const v = from.values.find((x) => x.number === n);
  const same = v && (to.values.find((x) => x.localName === v.localName) ?? to.values.find((x) => x.number === n));
  if (same) return same.number;
  if (toNewer) throw new CompatJsonError(path, what, n, `(unknown value ${n})`);
  const zero = to.values.find((x) => x.number === 0)?.name ?? "0";
  lost.push({ path, reason: `no ${to.typeName} value for ${n}; written as ${zero}` });
  return 0;
}
