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
 *
 * A body sent with a Content-Encoding other than identity (gzip, br, …) is
 * refused the same way: the servers read bodies as they are, and would
 * otherwise take compressed bytes for JSON.
 */
import { A2AError } from "../core/a2a-error.js";
import { mediaTypeOf } from "../core/media-type.js";

/** The check of the Content-Type and Content-Encoding headers: undefined when accepted, else the refusal. */
export type ContentTypeCheck = (header: string | null, encoding?: string | null) => A2AError | undefined;

/**
 * @param accept media types, lowercase, without parameters
 * @param error  the refusing error's name; `code` its JSON-RPC code, when the binding answers with one
 */
export function contentTypeCheck(accept: readonly string[], error: string, code?: number): ContentTypeCheck {
  const send = `send ${accept.join(" or ")}`;
  const options = code !== undefined ? { code } : {};
  return (header, encoding) => {
    const coding = encoding?.trim().toLowerCase();
    if (coding && coding !== "identity") {
      const said = `Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not supported; send the body as it is`;
      return A2AError.named(error, said, options);
    }
    if (header !== null && accept.includes(header)) return undefined; // the common case, as sent
    const type = mediaTypeOf(header);
    if (type !== "" && accept.includes(type)) return undefined;
    const problem = type === "" ? "Content-Type is missing" : `Content-Type ${type} is not supported`;
    return A2AError.named(error, `${problem}; ${send}`, options);
  };
}
