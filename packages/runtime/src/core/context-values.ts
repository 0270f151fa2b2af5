/**
 * Typed values one call carries from interceptors to handlers and executors.
 *
 *   key     createContextKey(defaultValue, description): an object compared by
 *           identity, so two modules never read each other's values by accident
 *   values  one ContextValues per call (HandlerContext.values); get returns the
 *           key's default until set; delete goes back to it
 *
 * The runtime's own keys: principalKey (principal.ts), the identity an
 * authentication interceptor verified.
 */

/** A key for one kind of value in ContextValues. */
export interface ContextKey<T> {
  readonly id: symbol;
  readonly defaultValue: T;
  readonly description: string;
}

/** A key whose value is `defaultValue` until a call sets it. */
export function createContextKey<T>(defaultValue: T, description = "context value"): ContextKey<T> {
  return { id: Symbol(description), defaultValue, description };
}

/** The values of one call. */
export interface ContextValues {
  get<T>(key: ContextKey<T>): T;
  set<T>(key: ContextKey<T>, value: T): ContextValues;
  delete(key: ContextKey<unknown>): ContextValues;
}

class MapContextValues implements ContextValues {
  readonly #values = new Map<symbol, unknown>();

  get<T>(key: ContextKey<T>): T {
    return this.#values.has(key.id) ? (this.#values.get(key.id) as T) : key.defaultValue;
  }

  set<T>(key: ContextKey<T>, value: T): ContextValues {
    this.#values.set(key.id, value);
    return this;
  }

  delete(key: ContextKey<unknown>): ContextValues {
    this.#values.delete(key.id);
    return this;
  }
}

/** An empty set of values, one per call. */
export function createContextValues(): ContextValues {
  return new MapContextValues();
}
