/**
 * Writes, into the messages module (compat-proto-module.ts), the two
 * conversions of each wrapped request (src/compat/wrapped-request.ts): the
 * older request that holds a pair's older message in one field ↔ the newer
 * message itself, which is the newer operation's request.
 *
 *   toNewer  the held message by its pair's function (absent: refused), then
 *            each name pattern read from the wrapper's field: every newer
 *            field it names takes its piece (a variable matches a run of
 *            characters without "/"); where the held message gave the field
 *            another value, the request is refused (the runtime's `named`);
 *   toOlder  the wrapper: the held field by the pair's function, the others
 *            written from their patterns.
 *
 * Each function takes the pair function's path and losses only when that
 * function does (parameters it does not read are printed with "_").
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { Printable } from "@bufbuild/protoplugin";
import type { NamePattern, PlanWrapper } from "../../compat/wrapped-request.js";
import type { Needs } from "../../compat/conversion-ir.js";
import { params, prose } from "../print/code-layout.js";
import { lit } from "./compat-proto-values.js";
import { paramNames } from "../print/unused-params.js";

/** What the wrapped functions are written with: the pair's functions and their needs, and the module's names. */
export interface WrappedEnv {
  readonly ts: boolean;
  rt(name: string): Printable;
  shape(d: DescMessage): Printable;
}

/** The pair a wrapper holds, with the names and needs of its two functions. */
export interface WrappedPair {
  readonly newer: DescMessage;
  readonly older: DescMessage;
  readonly wrapper: DescMessage;
  readonly plan: PlanWrapper;
  readonly toOlder: { readonly name: string; readonly needs: Needs };
  readonly toNewer: { readonly name: string; readonly needs: Needs };
}

/** `createTaskPushNotificationConfigRequest` + direction. */
export const wrappedName = (w: DescMessage, dir: "ToOlder" | "ToNewer") =>
  w.name.charAt(0).toLowerCase() + w.name.slice(1) + dir;

const fieldOf = (d: DescMessage, name: string): DescField => {
  const f = d.fields.find((x) => x.name === name);
  if (!f) throw new Error(`compat: ${d.typeName} has no field ${name}`);
  return f;
};

/** The call of a pair function with what it takes: `value`, then the path and the losses when it needs them. */
const call = (fn: WrappedPair["toOlder"], value: string, path: Printable[]): Printable[] => [
  fn.name,
  "(",
  value,
  ...(fn.needs.at ? [", ", ...path] : []),
  fn.needs.lost ? ", lost)" : ")",
];

/** A function's first line: its name, parameters (unread ones with "_"), result type. */
function signature(
  env: WrappedEnv,
  name: string,
  from: DescMessage,
  to: DescMessage,
  body: Printable[][],
): Printable[] {
  const p = paramNames(body);
  if (!env.ts) return [`function ${name}(from, ${p("path")}, ${p("lost")}) {`];
  const list = [
    ["from: ", env.shape(from)],
    [`${p("path")}: `, env.rt("At")],
    [`${p("lost")}: `, env.rt("Loss"), "[]"],
  ];
  return params(`function ${name}`, list, env.shape(to), " {");
}

/** A JSDoc comment, its text wrapped. */
const docLines = (text: string): Printable[][] => [
  ["/**"],
  ...prose(text, 96)
    .split("\n")
    .map((l) => [` * ${l}`]),
  [" */"],
];

/** The wrapper → the newer message. */
export function wrappedToNewer(env: WrappedEnv, w: WrappedPair): Printable[][] {
  const held = fieldOf(w.wrapper, w.plan.field);
  const body: Printable[][] = [
    [`  const out = from.${held.localName}`],
    ["    ? ", ...call(w.toNewer, `from.${held.localName}`, [env.rt("at"), "(path, ", lit(held.name), ")"])],
    [
      "    : ",
      env.rt("refused"),
      `(path, ${lit(held.name)}, ${lit(w.wrapper.typeName)}, ${lit(`the request needs ${held.name}`)});`,
    ],
  ];
  for (const n of w.plan.names) body.push(...readPattern(env, w, n));
  body.push(["  return out;"]);
  return [
    ...docLines(`${w.wrapper.typeName} → ${w.newer.typeName}: the held ${held.name}, its ids agreeing with the names.`),
    signature(env, wrappedName(w.wrapper, "ToNewer"), w.wrapper, w.newer, body),
    ...body,
    ["}"],
  ];
}

/** The newer message → the wrapper. */
export function wrappedToOlder(env: WrappedEnv, w: WrappedPair): Printable[][] {
  const held = fieldOf(w.wrapper, w.plan.field);
  const fields: Printable[][] = [[`$typeName: ${lit(w.wrapper.typeName)},`]];
  for (const n of w.plan.names) fields.push([`${fieldOf(w.wrapper, n.field).localName}: ${writePattern(w, n)},`]);
  fields.push([`${held.localName}: `, ...call(w.toOlder, "from", ["path"]), ","]);
  const body: Printable[][] = [["  return {"], ...fields.map((l) => ["    ", ...l]), ["  };"]];
  return [
    ...docLines(`${w.newer.typeName} → ${w.wrapper.typeName}: the message as ${held.name}, the names from its ids.`),
    signature(env, wrappedName(w.wrapper, "ToOlder"), w.newer, w.wrapper, body),
    ...body,
    ["}"],
  ];
}

/**
 * Statements: the wrapper's field read through its pattern into the newer fields, each agreeing with what the
 * held message gave it (the runtime's `named`: a piece that differs is refused).
 */
function readPattern(env: WrappedEnv, w: WrappedPair, n: NamePattern): Printable[][] {
  const field = fieldOf(w.wrapper, n.field);
  const from = `from.${field.localName}`;
  const targets = n.fields.map((f) => fieldOf(w.newer, f).localName);
  const agree = (target: string, piece: string): Printable[] => [
    `out.${target} = `,
    env.rt("named"),
    `(out.${target}, ${piece}, path, ${lit(field.name)}, ${lit(w.wrapper.typeName)});`,
  ];
  if (n.pieces.every((p) => p === "")) return [["  ", ...agree(targets[0]!, from)]];
  const source = n.pieces.map(escapeRegExp).join("([^/]*)");
  // The match is named for the field it reads (`parent`), unless that is the converted message's name.
  const v = field.localName === "out" ? "outMatch" : field.localName;
  const lines: Printable[][] = [[`  const ${v} = /^${source}$/.exec(${from});`]];
  for (const [i, t] of targets.entries()) lines.push([`  if (${v}) `, ...agree(t, `${v}[${i + 1}] ?? ""`)]);
  return lines;
}

/** Expression: the wrapper's field written from its pattern. */
function writePattern(w: WrappedPair, n: NamePattern): string {
  const fields = n.fields.map((f) => `from.${fieldOf(w.newer, f).localName}`);
  if (n.pieces.every((p) => p === "")) return fields[0]!;
  const text = n.pieces.map((p) => p.replace(/[`\\$]/g, (c) => `\\${c}`));
  return "`" + text.map((p, i) => (i < fields.length ? `${p}\${${fields[i]}}` : p)).join("") + "`";
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, (c) => `\\${c}`);
