/**
 * Whether this runtime has Node's built-in modules (node:http, node:dns, …): Node, and Bun and Deno, which
 * set `process.versions.node` too. Modules that need them import them on demand (`await import("node:dns")`)
 * after asking, so that Cloudflare Workers and browsers load the same modules without them.
 */
export const hasNodeBuiltins = (): boolean =>
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === "string";
