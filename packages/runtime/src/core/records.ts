/**
 * Objects made from others with names added or dropped. Rule: such an object is built by assigning its names
 * one by one (withNames, definedNames, headerRecord, headersWithout), never as a literal that spreads an object
 * and then adds a name the object lacks (`{ ...base, extra }`, `{ ...a, ...b }`, `{ ...(x ? { x } : {}), … }`),
 * nor by deleting a name from a copy. test/runtime/spread-literals.test.ts checks the runtime's literals.
 *
 * On Node 20 (V8 11.3) every object made that way gets a map of its own, so no inline cache sees its map twice:
 * walking its names (Object.keys, for…in, what node:http does with an answer's headers and the OpenTelemetry
 * SDK with a span's attributes) took about 1 µs instead of 25 ns, and reading a name about 0.7 µs, measured.
 * One such record of headers cost a server 5-6 µs a request, a fifth of what bare node:http spends on one.
 * Node 22 does not have the problem. A spread that only replaces names the object has is not slowed.
 */

type HeaderRecord = Readonly<Record<string, string>>;

/** A copy of `base` with `more`'s names set, a name of both taking `more`'s value. */
export function withNames<T extends object, U extends object>(base: T, more: U): Omit<T, keyof U> & U {
  const out: Record<string, unknown> = {};
  copy(out, base as Record<string, unknown>);
  copy(out, more as Record<string, unknown>);
  return out as Omit<T, keyof U> & U;
}

/** A copy of `record` without its names whose value is undefined (in place of `...(x ? { x } : {})` spreads). */
export function definedNames<T extends object>(record: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(record)) {
    const value = (record as Record<string, unknown>)[name];
    if (value !== undefined) set(out, name, value);
  }
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** One record of all of `records`' names, in order; a name that comes again takes the later value. */
export function headerRecord(...records: readonly HeaderRecord[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const record of records) copy(out, record);
  return out;
}

/** A copy of `headers` whose Vary (any case) also names `name`, once, after the names it had. */
export function varyBy(headers: HeaderRecord, name: string): Record<string, string> {
  const vary = Object.entries(headers).find(([k]) => k.toLowerCase() === "vary")?.[1];
  const out = headersWithout(headers, (k) => k.toLowerCase() === "vary");
  const named =
    vary
      ?.toLowerCase()
      .split(/\s*,\s*/)
      .includes(name.toLowerCase()) ?? false;
  set(out, "vary", vary === undefined || vary === "" ? name : named ? vary : `${vary}, ${name}`);
  return out;
}

/** A copy of `headers` without the names `drop` accepts. */
export function headersWithout(headers: HeaderRecord, drop: (name: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) if (!drop(name)) set(out, name, headers[name]!);
  return out;
}

function copy<V>(out: Record<string, V>, from: Readonly<Record<string, V>>): void {
  for (const name of Object.keys(from)) set(out, name, from[name]!);
}

/** Sets an own name, "__proto__" included (an assignment to it would set the prototype instead). */
export function set<V>(out: Record<string, V>, name: string, value: V): void {
  if (name === "__proto__")
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  else out[name] = value;
}
