/**
 * The request Content-Type check of the HTTP bindings, done before the body
 * is read. Rule: the header's media type (before any `;`, trimmed, lowercase;
 * parameters such as charset are ignored) must be one of the accepted ones.
 * A missing or empty Content-Type is refused too: a browser sends a POST with
 * no type, text/plain, multipart/form-data or
 * application/x-www-form-urlencoded from any web page without asking the
 * server first (a CORS-simple request), so only a type such a request cannot
 * carry lets a POST act. The accepted types and the refusing error are each
 * version's data (jsonrpcRequestContentTypes, restRequestContentTypes).
 */
import { A2AError } from "../core/a2a-error.js";

/** The check: undefined for an accepted type, else the refusal to answer with. */
export type ContentTypeCheck = (header: string | null) => A2AError | undefined;

/**
 * @param accept media types, lowercase, without parameters
 * @param error  the refusing error's name; `code` its JSON-RPC code, when the binding answers with one
 */
export function contentTypeCheck(accept: readonly string[], error: string, code?: number): ContentTypeCheck {
  const send = `send ${accept.join(" or ")}`;
  const options = code !== undefined ? { code } : {};
  return (header) => {
    if (header !== null && accept.includes(header)) return undefined; // the common case, as sent
    const type = (header ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "" && accept.includes(type)) return undefined;
    const problem = type === "" ? "Content-Type is missing" : `Content-Type ${type} is not supported`;
    return A2AError.named(error, `${problem}; ${send}`, options);
  };
}
