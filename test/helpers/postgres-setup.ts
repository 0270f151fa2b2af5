/**
 * vitest globalSetup: one private PostgreSQL cluster for the whole run
 * (postgres.ts), provided to the tests as "postgres" ({url} or {error}).
 * Missing binaries fail the run when CI=true; elsewhere only the PostgreSQL
 * tests fail, with the install hint. Teardown stops and deletes the cluster.
 */
import type { TestProject } from "vitest/node";
import { findPostgresBin, INSTALL_HINT, startTestCluster } from "./postgres.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const bin = findPostgresBin();
  if (bin === undefined) {
    if (process.env.CI === "true") throw new Error(`CI=true: ${INSTALL_HINT}`);
    project.provide("postgres", { error: INSTALL_HINT });
    return async () => {};
  }
  const cluster = await startTestCluster(bin);
  project.provide("postgres", { url: cluster.url });
  return () => cluster.stop();
}
