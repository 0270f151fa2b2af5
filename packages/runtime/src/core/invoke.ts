/**
 * Calls a handler method for an operation, turning what it returns (a
 * message init shape) into a message of the operation's output type. A
 * handler without the method answers the error of the operation's capability
 * (tables.capabilities: PushNotificationNotSupportedError for push configs,
 * ExtendedAgentCardNotConfiguredError for the extended card), else
 * UnsupportedOperationError. The request is then checked against the
 * version's input rules (validate.ts): a request that breaks one is
 * InvalidParams naming the field path, and the handler is not called.
 *
 * A server with interceptors (interceptor.ts) runs them around the check and
 * the handler: createInvoker builds the chain once per server.
 */
import { create, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { A2aServiceDefinition, HandlerContext, OperationInfo } from "./definition.js";
import { A2AError } from "./a2a-error.js";
import { chainInterceptors, type A2aNext, type Interceptor } from "./interceptor.js";

type AnyMethod = (this: unknown, request: unknown, context: HandlerContext) => unknown;

function call(handler: unknown, op: OperationInfo, input: Message, context: HandlerContext): unknown {
  const fn = (handler as Record<string, unknown>)[op.localName];
  if (typeof fn !== "function") {
    const name = op.capability?.unimplemented ?? "UnsupportedOperationError";
    throw A2AError.named(name, `${op.name} is not implemented`);
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

/** How a binding calls its handler: with the server's interceptors around it, if it has any. */
export interface Invoker {
  unary(op: OperationInfo, input: Message, context: HandlerContext): Promise<Message>;
  stream(op: OperationInfo, input: Message, context: HandlerContext): AsyncIterable<Message>;
  /** Whether interceptors run around the handler (the JSON-RPC server then serves no operation on JSON). */
  readonly intercepted: boolean;
}

/** The invoker of a server's handler and interceptors; `definition` is the version the server serves. */
export function createInvoker(
  handler: unknown,
  interceptors: readonly Interceptor[] | undefined,
  definition: A2aServiceDefinition,
): Invoker {
  if (!interceptors?.length) {
    return {
      unary: (op, input, context) => invokeUnary(handler, op, input, context),
      stream: (op, input, context) => invokeStream(handler, op, input, context),
      intercepted: false,
    };
  }
  const last: A2aNext = async ({ operation, request, context }) =>
    operation.streaming
      ? { kind: "stream", messages: invokeStream(handler, operation, request, context) }
      : { kind: "unary", message: await invokeUnary(handler, operation, request, context) };
  const chain = chainInterceptors(interceptors, last);
  return {
    async unary(operation, request, context) {
      const result = await chain({ definition, operation, request, context });
      if (result.kind !== "unary") throw new Error(`an interceptor answered unary ${operation.name} with a stream`);
      return result.message;
    },
    async *stream(operation, request, context) {
      const result = await chain({ definition, operation, request, context });
      if (result.kind !== "stream")
        throw new Error(`an interceptor answered streaming ${operation.name} with one message`);
      yield* result.messages;
    },
    intercepted: true,
  };
}
