/**
 * The media type of a Content-Type header as the runtime compares it: the part before any `;` (parameters such
 * as charset are not compared), trimmed, lowercase (media types are case-insensitive, RFC 9110 §8.3.1); ""
 * for a missing header. One rule for the servers' request checks and the clients' reading of answers.
 */

/** The media type of a Content-Type header (module rule): "Text/Event-Stream; x=1" → "text/event-stream". */
export const mediaTypeOf = (header: string | null | undefined): string =>
  (header ?? "").split(";", 1)[0]!.trim().toLowerCase();
