/**
 * One transaction on a connection of the pool: BEGIN, the work, COMMIT (or
 * ROLLBACK when the work throws), the connection given back, destroyed when
 * it broke. Every failure is rethrown through storeError, naming `where`.
 *
 * While the connection is checked out, an error listener is on it: pg emits
 * 'error' on a checked-out client whose connection dies between two
 * statements (a database restart), and the pool's own listener is off while
 * the client is out, so without this one the error would be an uncaught
 * 'error' event, fatal to the process. The next statement fails with it, and
 * the connection is destroyed on release.
 */
import type pg from "pg";
import { storeError } from "./store-error.js";

export async function inTransaction<T>(
  db: pg.Pool,
  where: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await db.connect().catch((error: unknown) => {
    throw storeError(where, error);
  });
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch((rollbackError: Error) => {
      broken ??= rollbackError;
    });
    throw storeError(where, error);
  } finally {
    client.release(broken);
    client.off("error", onError);
  }
}
