/**
 * The host lookups of one URL screen (url-screen.ts), by node:dns lookup: the system resolver (getaddrinfo),
 * which runs on libuv's thread pool (4 threads by default), shared with the process's file system, crypto and
 * zlib work. A getaddrinfo call cannot be cancelled: one whose name server never answers holds its thread until
 * the system resolver gives up (resolv.conf's timeout times its attempts, often 10 s and more).
 *
 *   lanes     at most MAX_LOOKUPS (2) lookups run at once, the others wait their turn in order: a caller that
 *             creates configs for hosts whose DNS never answers holds at most those threads, and the rest of
 *             the process keeps the others
 *   sharing   a host whose lookup is waiting or running is not asked again: its callers share the answer
 *   timeout   a caller not answered within timeoutMs of its call (its wait for a lane included) gets an
 *             UnresolvedHostError; a lookup whose every caller has given up by its turn is not started, and
 *             one running keeps its lane until getaddrinfo returns
 */
import { hasNodeBuiltins } from "../core/node-builtins.js";
import { Lanes } from "./lanes.js";

/** How many lookups of one screen run at once. */
export const MAX_LOOKUPS = 2;

/** An address a host resolved to, as node:dns gives it. */
export interface LookupAddress {
  readonly address: string;
  readonly family: number;
}

/** node:dns lookup with `{ all: true, verbatim: true }`, or one like it (tests). */
export type LookupAll = (
  host: string,
  done: (error: { readonly code?: string | undefined; readonly message: string } | null, all: LookupAddress[]) => void,
) => void;

/** The host of a webhook URL did not resolve: delivery retries it, config creation accepts it. */
export class UnresolvedHostError extends Error {
  override name = "UnresolvedHostError";
}

interface Pending {
  readonly answer: Promise<LookupAddress[]>;
  /** The latest time (Date.now) a caller still waits for the answer. */
  deadline: number;
}

/** node:dns's lookup, imported on first use; undefined on a runtime without node:dns. */
async function systemLookup(): Promise<LookupAll | undefined> {
  if (!hasNodeBuiltins()) return undefined;
  const dns = await import("node:dns");
  return (host, done) => dns.lookup(host, { all: true, verbatim: true }, done);
}

export class HostLookups {
  readonly #lanes = new Lanes(MAX_LOOKUPS);
  readonly #pending = new Map<string, Pending>();
  #lookup: Promise<LookupAll | undefined> | undefined;

  /** `lookup` replaces node:dns's (tests); without it, node:dns is imported on first use. */
  constructor(private readonly given?: LookupAll) {}

  /** Every address of `host`, or undefined on a runtime without node:dns (see the header). */
  async addresses(host: string, timeoutMs: number): Promise<LookupAddress[] | undefined> {
    this.#lookup ??= this.given ? Promise.resolve(this.given) : systemLookup();
    const lookup = await this.#lookup;
    if (lookup === undefined) return undefined;
    const deadline = Date.now() + timeoutMs;
    let pending = this.#pending.get(host);
    if (pending === undefined) {
      const made: Pending = { answer: this.#run(lookup, host, () => made.deadline), deadline };
      made.answer.catch(() => {}).finally(() => this.#pending.delete(host));
      this.#pending.set(host, made);
      pending = made;
    }
    pending.deadline = Math.max(pending.deadline, deadline);
    return withTimeout(pending.answer, host, timeoutMs);
  }

  async #run(lookup: LookupAll, host: string, deadline: () => number): Promise<LookupAddress[]> {
    await this.#lanes.take();
    try {
      if (Date.now() >= deadline()) throw new UnresolvedHostError(`host ${host} was not looked up: nobody waits`);
      return await new Promise((resolve, reject) =>
        lookup(host, (error, all) => {
          if (error) reject(new UnresolvedHostError(`host ${host} did not resolve: ${error.code ?? error.message}`));
          else resolve(all);
        }),
      );
    } finally {
      this.#lanes.give();
    }
  }
}

function withTimeout<T>(answer: Promise<T>, host: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new UnresolvedHostError(`host ${host} did not resolve within ${timeoutMs} ms`)),
      timeoutMs,
    );
    answer.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
