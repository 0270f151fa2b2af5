// Types of bench/a2a-js-shape.js, for the TypeScript tests that import it.
import type { DescMessage } from "@bufbuild/protobuf";

/** A protobuf-es message as the ts-proto shaped object @a2a-js/sdk 1.3.0 uses for v1.0. */
export function toA2aJsShape(desc: DescMessage, msg: object): Record<string, unknown>;

/** An @a2a-js/sdk v1.0 object as protobuf-es init data (for `create`). */
export function fromA2aJsShape(desc: DescMessage, obj: object): Record<string, unknown>;
