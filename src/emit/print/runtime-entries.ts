/**
 * The entries of @protoc-gen-a2a/runtime that generated code imports from:
 *
 *   runtimeModule     the main entry: what users write against (errors, the handler and
 *                     client types, options and results they hold, Loss, Converter)
 *   protocolModule    /protocol: what only generated code needs (protocol tables and route
 *                     types, the generic handler and client factories the stubs wrap, the
 *                     bridge, the conversion helpers)
 *   compatJsonModule  /compat-json: the helpers of the a2a.json conversions
 *   taskModule        /task: the task runtime (push payloads)
 *
 * A name imported from the wrong entry fails the generated samples' type check.
 */
export const runtimeModule = "@protoc-gen-a2a/runtime";
export const protocolModule = `${runtimeModule}/protocol`;
export const compatJsonModule = `${runtimeModule}/compat-json`;
export const taskModule = `${runtimeModule}/task`;

/**
 * The proto package of the messages the task runtime's types are (packages/runtime/src/task/a2a-types.ts):
 * its push payloads take that package's Task, so a package of another name (a fork's) gets none.
 */
export const taskRuntimePackage = "lf.a2a.v1";

/**
 * The a2a.json modules (the codec, the direct conversions) call some thirty helpers of /compat-json: they
 * import the entry whole, as `rt`, and call `rt.lose(…)`, `rt.str(…)`; one import line naming them all would
 * be hundreds of characters long.
 */
export const compatJsonNamespace = { alias: "rt", from: compatJsonModule, typeOnly: false } as const;

/** A helper or type of /compat-json, through its namespace import. */
export const compatJsonHelper = (name: string) => `rt.${name}`;
