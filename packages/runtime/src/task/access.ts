/**
 * Whose tasks a call sees (A2A v1.0 §13.1: servers MUST scope task operations
 * to the authenticated caller; §3.3.2: ListTasks lists only the caller's).
 *
 *   owner    every task records, when it is created, the owner it is created
 *            in the name of; its push configs belong to the same owner
 *            (store.ts). Without authentication the owner is ""
 *   policy   createTaskHandler's `authorize(principal, context)` answers a
 *            TaskAccess: `owner`, in whose name the call creates tasks, and
 *            `seesAll`, whether it sees the tasks of every owner (else only
 *            those of `owner`). Default ownerOnly: owner = ownerOf(principal),
 *            seesAll false. An admin scope that sees all:
 *              authorize: (p) => ({ owner: ownerOf(p), seesAll: p?.scopes.includes("admin") ?? false })
 *   ownerOf  the principal's scheme name (URI-encoded: it holds no "/"), "/",
 *            and its id: `apiKey/alice`; "" without a principal. Ids of two
 *            schemes never meet: an API key's "alice" is not the "alice" an
 *            OpenID Connect issuer names, nor a second issuer's
 *            A policy refuses a call by throwing (e.g. an A2AError
 *            "PermissionDeniedError"): the caller gets that error, before
 *            anything is read. It runs once per operation, before the store
 *   hiding   a task the policy does not show answers TaskNotFoundError with
 *            the message of a missing one, on every operation, and costs the
 *            same store round trips: the store applies the owner in its read
 *   system   the runtime's own paths (the updater, turns, leases, push
 *            delivery, the watches of a task's subscribers) read without an
 *            owner; they act for no caller
 *
 * The owner is a store key: it may hold no NUL character and be at most
 * 512 bytes (store-keys.ts; InvalidParamsError naming "owner"). A policy
 * whose principals have longer ids maps them (a hash) to shorter owners.
 */
import type { Principal } from "../core/principal.js";
import type { HandlerContext } from "../core/definition.js";
import { checkKey } from "./store-keys.js";

/** What a call may do with tasks, as the authorize policy decides it. */
export interface TaskAccess {
  /** The owner the call's new tasks (and push configs) record, and whose tasks it sees. */
  readonly owner: string;
  /** Sees the tasks of every owner, not only `owner`'s (still creating them as `owner`). */
  readonly seesAll: boolean;
}

/** createTaskHandler's `authorize` option: the call's TaskAccess; throws to refuse the call. */
export type TaskAuthorizer = (
  principal: Principal | undefined,
  context: HandlerContext,
) => TaskAccess | Promise<TaskAccess>;

/** The owner the default policy gives a principal (module rules): `scheme/id`, or "" without one. */
export const ownerOf = (principal: Principal | undefined): string =>
  principal === undefined ? "" : `${encodeURIComponent(principal.scheme)}/${principal.id}`;

/** The default policy: each caller sees its own tasks; without authentication, every call is owner "". */
export const ownerOnly: TaskAuthorizer = (principal) => ({ owner: ownerOf(principal), seesAll: false });

/** A call's access as the operations use it. */
export interface CallScope {
  /** The owner new tasks record. */
  readonly owner: string;
  /** The owner the store reads are scoped by; undefined: every owner. */
  readonly visible: string | undefined;
}

function scopeFrom(access: TaskAccess, operation: string): CallScope {
  if (typeof access?.owner !== "string" || typeof access.seesAll !== "boolean") {
    throw new Error(`${operation}: the authorize policy answered no {owner: string, seesAll: boolean}`);
  }
  checkKey(operation, "owner", access.owner);
  return { owner: access.owner, visible: access.seesAll ? undefined : access.owner };
}

/** Asks the policy about this call (once per operation); its throw refuses the call. */
export async function callScope(
  authorize: TaskAuthorizer,
  context: HandlerContext,
  operation: string,
): Promise<CallScope> {
  return scopeFrom(await authorize(context.principal, context), operation);
}
