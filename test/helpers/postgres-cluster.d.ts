// Types of test/helpers/postgres-cluster.js (plain JavaScript, shared with bench/).

export const INSTALL_HINT: string;

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  readonly url: string;
  /** pg_ctl stop -m immediate, then the cluster's temp dir is deleted. */
  stop(): void;
}

/** The directory holding initdb and pg_ctl, or undefined when there is none. */
export function findPostgresBin(): string | undefined;

/** Creates and starts a private cluster on 127.0.0.1 with `database` in it; the caller stops it. */
export function startPostgresCluster(bin: string, database: string): Promise<PostgresCluster>;
