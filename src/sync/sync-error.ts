/** The one error type of the sync step: its message names the place (file, URL) and is one line. */
export class SyncError extends Error {
  override name = "SyncError";
}
