/**
 * A2A_PUSH_ALLOW for the example agent (main.ts wires it): the webhook hosts and networks push delivery may
 * reach beside public addresses. A pure function of the variable's value:
 *
 *   unset        {}: the example's defaults (loopback and private networks allowed: it listens on 127.0.0.1)
 *   set          comma-separated entries, spaces around an entry ignored, empty entries skipped; an entry
 *                with "/" is a CIDR network ("10.0.0.0/8", "fd00::/8"), any other a host name or IP address
 *                ("127.0.0.1", "hooks.local"). Private networks are then allowed only as listed
 *                (pushToPrivateNetworks false): the list is all the agent may reach beside public addresses.
 *                Set but empty: nothing beside public addresses.
 *   bad entry    { problem }: one line naming A2A_PUSH_ALLOW and the entry, with the push sender's reason
 *
 * e.g. A2A_PUSH_ALLOW=127.0.0.1,10.0.0.0/8,hooks.local
 */
import { createPushSender } from "@protoc-gen-a2a/runtime/task";
import type { PushAllow } from "./echo-handler.js";

export const PUSH_ALLOW_VARIABLE = "A2A_PUSH_ALLOW";

/** What startEchoAgent gets from A2A_PUSH_ALLOW, or why the value cannot be used. */
export type PushAllowFromEnv =
  | { readonly pushAllow?: PushAllow; readonly pushToPrivateNetworks?: boolean }
  | { readonly problem: string };

export function pushAllowFromEnv(value: string | undefined): PushAllowFromEnv {
  if (value === undefined) return {};
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const hosts = entries.filter((entry) => !entry.includes("/"));
  const networks = entries.filter((entry) => entry.includes("/"));
  try {
    // The sender's own reading of the lists is the one rule; making one has no other effect.
    createPushSender({ allowHosts: hosts, allowNetworks: networks });
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const reason = e.message
      .replace(/^createPushSender: allowHosts entry/, "host")
      .replace(/^createPushSender: allowNetworks entry/, "network");
    return { problem: `${PUSH_ALLOW_VARIABLE}: ${reason}` };
  }
  return { pushAllow: { hosts, networks }, pushToPrivateNetworks: false };
}
