/**
 * The keys of an a2a.json part and of its file, as both readers of a v0.3 part
 * know them: the direct conversion (src/emit/conversions/compat-json-transforms.ts) and the
 * a2a.json codec (src/emit/conversions/jsonrpc-codec-decode.ts). A key outside them is
 * reported lost ("a2a.v1.Part has no field for it"), on both paths alike.
 *
 *   part   TextPart, FilePart and DataPart together   (J03 definitions l.2518, l.828, l.694)
 *   file   FileWithUri and FileWithBytes together     (J03 definitions l.880, l.859)
 */

export const PART_KEYS: readonly string[] = ["kind", "text", "file", "data", "metadata"];
export const FILE_KEYS: readonly string[] = ["uri", "bytes", "mimeType", "name"];
