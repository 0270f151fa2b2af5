/**
 * The example agent's v1.0 handler: the echo executor (echo-executor.ts) over
 * createTaskHandler, which keeps the tasks (in memory, or in PostgreSQL when
 * given a store), streams, cancel and push delivery. The v0.3 side is the
 * version bridge of this handler (server.ts).
 */
import {
  createPushSender,
  createTaskHandler,
  type PushSender,
  type TaskStore,
  type TaskTelemetry,
} from "@protoc-gen-a2a/runtime/task";
import { olderPushPayloads } from "../../generated-samples/a2a_compat.js";
import { A2AServiceV1_0, type A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import type { AgentCard } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { echoExecutor } from "./echo-executor.js";

export { INPUT_PROMPT, INPUT_TEXT, WAIT_TEXT } from "./echo-executor.js";

/**
 * Webhook hosts and networks push delivery may reach although the screening would refuse them (the sender's
 * allowHosts and allowNetworks, packages/runtime/src/task/allow-list.ts): exact host names or IP addresses,
 * and CIDR networks such as "10.0.0.0/8" or "fd00::/8". A bad entry makes createEchoHandler throw a RangeError
 * naming it.
 */
export interface PushAllow {
  readonly hosts?: readonly string[];
  readonly networks?: readonly string[];
}

export interface EchoHandlerOptions {
  /** Where tasks live; default: in memory. */
  readonly store?: TaskStore;
  /**
   * The card GetExtendedAgentCard answers the authenticated caller (its principal id); without it,
   * ExtendedAgentCardNotConfiguredError. A call without a principal is UnauthenticatedError (S10 §13.3).
   */
  readonly extendedCard?: (principalId: string) => AgentCard;
  /**
   * Deliver push notifications to loopback and private addresses too. Default true: the example runs on
   * 127.0.0.1 next to its webhooks. An agent on a network keeps the screening on (false) and lists what its
   * webhooks need in pushAllow.
   */
  readonly pushToPrivateNetworks?: boolean;
  /** Hosts and networks webhooks may reach beside public addresses (and private ones, when those are allowed). */
  readonly pushAllow?: PushAllow;
  /** Follows turns, push attempts and store operations (createTaskHandler's telemetry). */
  readonly telemetry?: TaskTelemetry;
  /** The push sender, when the caller closes it on shutdown; default: createEchoPushSender(options), never closed. */
  readonly pushSender?: PushSender;
}

/** The push sender of the example: screening as the options say (see pushToPrivateNetworks and pushAllow). */
export function createEchoPushSender(options: EchoHandlerOptions = {}): Required<PushSender> {
  return createPushSender({
    allowPrivateNetworks: options.pushToPrivateNetworks ?? true,
    allowHosts: options.pushAllow?.hosts ?? [],
    allowNetworks: options.pushAllow?.networks ?? [],
  });
}

export function createEchoHandler(options: EchoHandlerOptions = {}): A2AServiceHandler {
  const extendedCard = options.extendedCard;
  return createTaskHandler({
    definition: A2AServiceV1_0,
    executor: echoExecutor,
    ...(options.store ? { store: options.store } : {}),
    push: {
      sender: options.pushSender ?? createEchoPushSender(options),
      // Configs made by v0.3 calls (through the bridge) get the v0.3 Task in a2a.json.
      payload: olderPushPayloads,
    },
    ...(extendedCard ? { extendedAgentCard: async (principal) => extendedCard(principal.id) } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  });
}
