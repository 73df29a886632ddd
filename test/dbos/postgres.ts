/**
 * The PostgreSQL the DBOS tests use: `TOOLGEN_PG_URL`, else the project machines' own
 * (`postgres://postgres@127.0.0.1:5432/test`, trust authentication). Unreachable, the tests are
 * skipped with the reason, unless CI=true: there a missing PostgreSQL is a failure, not a skip.
 */
import pg from 'pg';

export interface Postgres {
  readonly skip: boolean;
  readonly reason: string;
  /** The URL of another database on the same server. */
  urlFor(database: string): string;
  /** Drops a database the tests made, ending its sessions. */
  drop(database: string): Promise<void>;
}

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';

export async function postgres(): Promise<Postgres> {
  const base = process.env['TOOLGEN_PG_URL'] ?? DEFAULT_URL;
  const urlFor = (database: string) => {
    const url = new URL(base);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const client = new pg.Client({ connectionString: base, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
  } catch (error) {
    const reason = `no PostgreSQL at ${base} (${(error as Error).message}): set TOOLGEN_PG_URL to a server where the tests may create databases`;
    if (process.env['CI'] === 'true')
      throw new Error(`CI=true: the DBOS tests must run, and there is ${reason}`, { cause: error });
    console.warn(`skipping the DBOS tests: ${reason}`);
    return { skip: true, reason, urlFor, drop: async () => {} };
  }
  return {
    skip: false,
    reason: '',
    urlFor,
    drop: async (database) => {
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
