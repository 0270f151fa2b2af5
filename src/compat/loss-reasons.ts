/**
 * The loss reasons only a transform knows, each written once. The plan's
 * lossy steps carry their own reasons (compat-plan.ts); what a transform
 * reports beyond them is spelled here, and both emitters that write the
 * transforms (the proto path, src/emit/conversions/compat-proto-transforms.ts, and the
 * a2a.json path, src/emit/conversions/compat-json-transforms.ts) take it from here, so a
 * field is lost for the same reason whatever the path
 * (test/compat-loss-reasons.test.ts).
 */

/** Reasons reported as they are. */
export const LOSS = {
  /** A newer text part's media_type. */
  textPartMediaType: "a v0.3 text part has no media type",
  /** A newer data part's media_type. */
  dataPartMediaType: "a v0.3 data part has no media type",
  /** A newer data part whose value is not an object. */
  dataWrapped: "a v0.3 data part holds an object; this value was wrapped as {value: …}",
  /** A newer history_length of 0 (no history). */
  noHistory: "v0.3 cannot ask for no history (0 means no limit there); sent without a limit",
  /** An a2a.json file name on a part that is not a file part (read toward the newer version). */
  fileNameOffFilePart: "a file name on a part that is not a file part has no place in v1.0",
  /** A newer text part's filename, where a2a.json carries file names on file parts only. */
  textPartFileName: "a v0.3 text part has no file name",
  /** A newer data part's filename, likewise. */
  dataPartFileName: "a v0.3 data part has no file name",
  /** A newer card without a 0.x interface. */
  noOlderInterface: "no 0.x interface; the v0.3 card lists interfaces a v0.3 client may not speak",
  /**
   * A newer id holding "/", written into an older resource name (the proto path only: a2a.json holds the ids
   * apart, and the JSON-RPC path carries them whole).
   */
  slashInName: 'a v0.3 resource name holds each id as one segment; an id with "/" is not read back from it',
} as const;

/** Reasons the generated code completes: the text before the value it names. */
export const LOSS_BEFORE = {
  /** The older schemes after the first; the dropped schemes follow, joined by ", ". */
  droppedSchemes: "v1.0 takes one scheme; dropped ",
} as const;
