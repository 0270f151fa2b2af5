/**
 * What the generated message conversions (a2a_compat_messages.ts: the older version's
 * proto messages ↔ the newer version's, one function per pair and direction)
 * call at run time: the converter that dispatches a message to its pair's
 * function by type name, the list loop toward the newer version (one path
 * node per list, as compat-json's eachTo toward the older one), and the
 * refusals and losses those functions report.
 * The conversions themselves are all generated (src/emit/compat-proto-*.ts).
 */
import { createRegistry, type DescFile, type Message } from "@bufbuild/protobuf";
import { CompatJsonError, pathOf, type At } from "./compat-json.js";
import type { Converter, Direction, Loss } from "../core/conversion-types.js";

/** A generated conversion of one message type: `a` is where the message sits, losses go to `lost`. */
export type MessageConversion = (message: never, a: At, lost: Loss[]) => Message;

/** One pair: the newer type name, the older one, and the conversion in each direction. */
export type PairConversion = readonly [
  newer: string,
  older: string,
  toOlder: MessageConversion,
  toNewer: MessageConversion,
];

/**
 * A wrapped request: the newer message, the older request that holds its counterpart in one field, and the
 * conversion each way (src/compat/wrapped-request.ts says which fields the other ones fill).
 */
export type WrappedConversion = PairConversion;

/**
 * The converter over the generated conversions of `pairs` and `wrapped`; `files` are both versions'
 * descriptors. `convert` goes by the message's pair; `convertRequest` also takes a wrapped request.
 */
export function pairConverter(
  files: readonly DescFile[],
  pairs: readonly PairConversion[],
  wrapped: readonly WrappedConversion[] = [],
): Converter {
  const toOlder = new Map<string, MessageConversion>();
  const toNewer = new Map<string, MessageConversion>();
  const counterparts = new Map<string, string>();
  for (const [newer, older, down, up] of pairs) {
    toOlder.set(newer, down);
    toNewer.set(older, up);
    counterparts.set(newer, older);
    counterparts.set(older, newer);
  }
  // By "source target": each wrapper converts only as the request of its operation.
  const requests = new Map<string, MessageConversion>();
  for (const [newer, older, down, up] of wrapped) {
    requests.set(`${newer} ${older}`, down);
    requests.set(`${older} ${newer}`, up);
  }
  const side = (direction: Direction) => (direction === "toOlder" ? toOlder : toNewer);
  const run = <T extends Message>(convert: MessageConversion, message: Message, onLoss?: (loss: Loss) => void) => {
    const lost: Loss[] = [];
    const out = convert(message as never, undefined, lost) as T;
    if (onLoss) for (const l of lost) onLoss(l);
    return { message: out, lost };
  };
  const converter: Converter = {
    registry: createRegistry(...files),
    counterpart: (typeName) => counterparts.get(typeName),
    convert<T extends Message>(message: Message, direction: Direction, onLoss?: (loss: Loss) => void) {
      const name = message.$typeName;
      // Well-known types (google.protobuf.Empty, …) are the same in both versions.
      if (name.startsWith("google.protobuf.")) return { message: message as T, lost: [] };
      const convert = side(direction).get(name);
      if (!convert) {
        const other = side(direction === "toOlder" ? "toNewer" : "toOlder");
        throw new Error(`compat: ${name} ${other.has(name) ? "is already on that side" : "has no counterpart"}`);
      }
      return run<T>(convert, message, onLoss);
    },
    convertRequest<T extends Message>(message: Message, target: string, onLoss?: (loss: Loss) => void) {
      const name = message.$typeName;
      const wrapper = requests.get(`${name} ${target}`);
      if (wrapper) return run<T>(wrapper, message, onLoss);
      if (counterparts.get(name) !== target) throw new Error(`compat: ${name} does not convert to ${target}`);
      return converter.convert<T>(message, toOlder.has(name) ? "toOlder" : "toNewer", onLoss);
    },
  };
  return converter;
}

/**
 * Each message of a list converted toward the newer version by `one`, with its index in the path: one path
 * node for the whole list, its key set to each index in turn (a path is read only for a refusal, at once).
 */
export function eachAt<M, T>(list: readonly M[], a: At, one: (x: M, a: At) => T): T[] {
  const out: T[] = new Array(list.length);
  const el: { up: At; key: string | number } = { up: a, key: 0 };
  for (let i = 0; i < list.length; i++) {
    el.key = i;
    out[i] = one(list[i]!, el);
  }
  return out;
}

const keyPath = (a: At, key: string | number) => {
  const up = pathOf(a);
  return typeof key === "number" ? `${up}[${key}]` : up === "" ? key : key === "" ? up : `${up}.${key}`;
};

/**
 * An enum value the older enum has no value for, toward the older version: reported at `key` under `a`,
 * written as the value 0 (`zeroName`).
 */
export function enumLost(lost: Loss[], a: At, key: string | number, n: number, older: string, zeroName: string): 0 {
  lost.push({ path: keyPath(a, key), reason: `no ${older} value for ${n}; written as ${zeroName}` });
  return 0;
}

/** An enum value the source enum does not have, toward the newer version: refused (`what` names the field). */
export function enumRefused(a: At, key: string | number, what: string, n: number): never {
  throw new CompatJsonError(keyPath(a, key), what, n, `(unknown value ${n})`);
}

/**
 * An id a wrapped request's name field `key` (its route's path: `parent`, `config_id`) gives, where the message
 * it holds may name one too: the name's when the message's is empty or the same, the message's when the name
 * gives none, else refused (the route names one task, the body another: a caller checked by the route's id must
 * not write to another's).
 */
export function named(held: string, fromName: string, a: At, key: string, what: string): string {
  if (fromName === "" || fromName === held) return held;
  if (held === "") return fromName;
  return refused(a, key, what, `it names ${fromName}, the message it holds ${held}`);
}

/** A value that cannot be converted toward the newer version: refused at `key` under `a` ("" for `a` itself). */
export function refused(a: At, key: string, what: string, reason: string): never {
  throw new CompatJsonError(keyPath(a, key), what, undefined, `(${reason})`);
}
