/**
 * One webhook POST's input and outcome, shared by the two ways of making it (push-attempt.ts over fetch,
 * push-attempt-node.ts over node:http) and read by the retry policy (push-policy.ts).
 */
import type { ScreenedUrl } from "./url-screen.js";

export interface AttemptInput {
  readonly target: ScreenedUrl;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

export type AttemptOutcome =
  | {
      readonly kind: "answered";
      readonly status: number;
      readonly statusText: string;
      readonly retryAfter?: string;
      /**
       * Resolves once the attempt's connection is closed: its answer's body read or dropped, at the latest
       * timeoutMs after the answer came (node:http) or after the attempt began (fetch). Never rejects.
       */
      readonly closed: Promise<void>;
    }
  | { readonly kind: "failed"; readonly cause: Error; readonly timedOut: boolean; readonly retryable: boolean };

/** How much of an answer's body an attempt reads before it drops the rest. */
export const MAX_DRAIN_BYTES = 64 * 1024;
