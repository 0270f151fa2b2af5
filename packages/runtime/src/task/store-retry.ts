/**
 * Store work that must not be lost to a blip: asked again while the store says it is unavailable for now (an
 * A2AError with HTTP status 503, as the PostgreSQL store answers a restart or a lost connection:
 * postgres/store-error.ts), after waits of STORE_RETRIES_MS (about 6 s in all); each failure is told to
 * `failed` first. Any other failure, or the last one, is thrown. Used where nobody waits to retry: the FAILED
 * status of an executor that threw (run.ts), the push configs read after a commit (push-delivery.ts).
 */
import { A2AError } from "../core/a2a-error.js";

/** The waits before each new try. */
export const STORE_RETRIES_MS: readonly number[] = [100, 200, 400, 800, 1600, 3200];

/** Whether the store says it is unavailable for now, which resolves itself. */
export const storeUnavailable = (error: unknown): boolean =>
  error instanceof A2AError && error.options.httpStatus === 503;

/** `work`, tried again after each wait of STORE_RETRIES_MS while the store is unavailable (see the header). */
export async function whileStoreUnavailable<T>(work: () => Promise<T>, failed: (error: unknown) => void): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const wait = STORE_RETRIES_MS[attempt];
      if (wait === undefined || !storeUnavailable(error)) throw error;
      failed(error);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
