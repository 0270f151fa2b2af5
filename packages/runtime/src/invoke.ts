/**
 * Calls a handler method for an operation, turning what it returns (a
 * message init shape) into a message of the operation's output type. A
 * handler without the method answers the error of the operation's capability
 * (tables.capabilities: PushNotificationNotSupportedError for push configs,
 * ExtendedAgentCardNotConfiguredError for the extended card), else
 * UnsupportedOperationError. The request is then checked against the
 * version's input rules (validate.ts): a request that breaks one is
 * InvalidParams naming the field path, and the handler is not called.
 */
import { create, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { HandlerContext, OperationInfo } from "./definition.js";
import { A2AError } from "./a2a-error.js";

type AnyMethod = (this: unknown, request: unknown, context: HandlerContext) => unknown;

function call(handler: unknown, op: OperationInfo, input: Message, context: HandlerContext): unknown {
  const fn = (handler as Record<string, unknown>)[op.localName];
  if (typeof fn !== "function") {
    throw new A2AError(op.capability?.unimplemented ?? "UnsupportedOperationError", `${op.name} is not implemented`);
  }
  const problem = op.checkRequest?.(input, context.binding);
  if (problem) throw invalidRequest(op, context.binding, problem);
  return (fn as AnyMethod).call(handler, input, context);
}

/** InvalidParams for a request that breaks an input rule, naming the operation as the binding names it. */
export function invalidRequest(op: OperationInfo, binding: HandlerContext["binding"], problem: string): A2AError {
  const name = binding === "JSONRPC" ? `params for ${op.jsonrpcMethod}` : `request for ${op.name}`;
  return new A2AError("InvalidParamsError", `Invalid ${name}: ${problem}`);
}

export async function invokeUnary(
  handler: unknown,
  op: OperationInfo,
  input: Message,
  context: HandlerContext,
): Promise<Message> {
  const out = await call(handler, op, input, context);
  return create(op.method.output as DescMessage, out as never);
}

export async function* invokeStream(
  handler: unknown,
  op: OperationInfo,
  input: Message,
  context: HandlerContext,
): AsyncIterable<Message> {
  const events = call(handler, op, input, context) as AsyncIterable<unknown>;
  for await (const ev of events) {
    if (context.signal.aborted) return;
    yield create(op.method.output as DescMessage, ev as never);
  }
}
