/**
 * Percent-encoding for path variables, as google/api/http.proto requires:
 * a single-segment variable encodes every character except [-_.~0-9a-zA-Z];
 * a multi-segment variable also keeps "/". On the server a single-segment
 * value is fully decoded after matching; a multi-segment value keeps "%2F"
 * encoded, so the segment structure it matched stays visible.
 */

const extraReserved = /[!'()*]/g;
const hexByte = (c: string) => "%" + c.charCodeAt(0).toString(16).toUpperCase();

export function encodeSegmentValue(value: string): string {
  return encodeURIComponent(value).replace(extraReserved, hexByte);
}

export function encodeMultiSegmentValue(value: string): string {
  return value.split("/").map(encodeSegmentValue).join("/");
}

/** Throws URIError on a malformed escape; callers turn that into a 400. */
export function decodeSegmentValue(raw: string): string {
  return raw.includes("%") ? decodeURIComponent(raw) : raw;
}

export function decodeMultiSegmentValue(raw: string): string {
  if (!raw.includes("%")) return raw;
  // Split on the encoded slash (either case), decode the pieces, keep the slashes encoded.
  return raw
    .split("%2F")
    .map((upper) => upper.split("%2f").map(decodeURIComponent).join("%2f"))
    .join("%2F");
}
