/**
 * The contract between createTaskHandler and push delivery (push.ts): the
 * handler screens a webhook URL when a config is created, and hands each
 * update's payload, already written in the config's protocol version, to the
 * sender; the sender never blocks the task and reports a failed delivery to
 * its onError.
 */
import type { TaskPushNotificationConfig } from "./a2a-types.js";

/** How one attempt of a delivery is traced: headers it adds to the webhook request, and its end. */
export interface PushAttemptTrace {
  /** Added to the webhook request, e.g. traceparent. */
  readonly headers: Readonly<Record<string, string>>;
  /** The attempt ended: the webhook's HTTP status when it answered, else what failed. */
  end(result: { readonly status?: number; readonly failure?: string }): void;
}

/**
 * How a delivery ended: delivered; failed (given up after one or more attempts); or dropped (never sent: its
 * queue overflowed, its config was deleted or the sender closed before its first attempt).
 */
export type PushOutcome = "delivered" | "failed" | "dropped";

/** How a delivery is traced (task/telemetry.ts makes it): each attempt, and the delivery's end. */
export interface PushTrace {
  attempt(n: number): PushAttemptTrace;
  end(outcome: PushOutcome): void;
}

export interface PushDelivery {
  readonly config: TaskPushNotificationConfig;
  /** The protocol version the payload is written in, e.g. "1.0". */
  readonly protocolVersion: string;
  /** The JSON body: a v1.0 StreamResponse, or a v0.3 a2a.json Task. */
  readonly body: string;
  /** Set when the task handler has telemetry: the sender reports each attempt and the end to it. */
  readonly trace?: PushTrace | undefined;
  /**
   * The owner of the task (StoredPushConfig.owner): the sender bounds what one owner's deliveries hold by it
   * (maxQueuedBytesPerOwner), and shares its turns fairly by it. "" or undefined: nobody authenticated, bounded
   * by the other byte limits alone, and one owner for turns.
   */
  readonly owner?: string | undefined;
}

export interface PushSender {
  /**
   * Refuses (A2AError InvalidParamsError, naming the reason) a webhook URL that delivery would refuse:
   * not http(s), or a loopback, private, link-local or cloud-metadata address, unless the sender allows it.
   * A host that does not resolve (yet) is accepted: delivery resolves and screens it again on every attempt.
   */
  checkUrl(url: string): Promise<void>;
  /** Starts a delivery (with its retries) and returns at once; failures go to the sender's onError. */
  send(delivery: PushDelivery): void;
  /** Resolves when every delivery started so far has ended (delivered or given up). */
  idle(): Promise<void>;
  /**
   * The config was deleted: drops its waiting deliveries and retries no more (one in flight ends). Optional:
   * a sender without it goes on delivering what it holds.
   */
  cancel?(tenant: string, taskId: string, configId: string): void;
  /**
   * Stops: drops what waits and what is sent later, retries no more, and resolves once the attempts in flight
   * have ended. Optional; the task handler never calls it (whoever made the sender closes it).
   */
  close?(): Promise<void>;
}
