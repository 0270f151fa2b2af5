/**
 * Whether this runtime has Node's built-in modules (node:http, node:dns, …): Node, and Bun and Deno, which
 * set `process.versions.node` too. Modules that need them import them on demand (`await import("node:dns")`)
 * after asking, so that Cloudflare Workers and browsers load the same modules without them.
 */
export const hasNodeBuiltins = (): boolean =>
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === "string";

/**
 * A package imported by its name at run time (an optional peer such as undici or @connectrpc/connect-node),
 * which bundlers for browsers and Workers leave out since the name is not written at the import: those
 * platforms never run the code that asks for it (mutual TLS from JavaScript is Node's; a browser presents its
 * own client certificate).
 */
export const importByName = <T>(name: string): Promise<T> => import(name) as Promise<T>;
