/**
 * Where the package's own files are, found from this module. It sits at the top of dist/ once built, both
 * unbundled and inside the binary's bundle (dist/protoc-gen-a2a.cjs, which is in dist/ too), so these URLs
 * hold for every module that imports them, at any depth. scripts/bundle/bundle.js refuses a module below the
 * top of dist/ that finds files relative to itself: in the bundle it would find them from dist/.
 */

/** The package's root: package.json, proto/, templates/. */
export const packageRoot = new URL("../", import.meta.url);

/** dist/: the built modules, and what the build put beside them (dist/proto, dist/generated). */
export const distRoot = new URL("./", import.meta.url);
