/**
 * DBOS's system-database migration, one process at a time. DBOS migrates without a lock, so workers
 * launched together on a new database race through the same DDL and one of them fails (a duplicate
 * key in `dbos_migrations`, "tuple concurrently updated", a deadlock). Here each process first takes
 * a PostgreSQL advisory lock in the system database; whoever comes second finds the work done.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';

const LOCK = 'toolgen.dbos-migrate';
/** How often a process waiting for another's migration tries the lock again. */
const RETRY_MS = 50;
/** PostgreSQL's `invalid_catalog_name`: the database does not exist. */
const NO_DATABASE = '3D000';
/** Another process created the same database a moment earlier. */
const CREATED_MEANWHILE = new Set(['42P04', '23505']);

/**
 * Creates the system database when missing and migrates DBOS's schema, under a lock held in that
 * database, then runs `more` (toolgen's own tables) under the same lock.
 *
 * @example await migrateSystemDatabase('postgres://app@db:5432/app_dbos', () => journal.migrate());
 */
export async function migrateSystemDatabase(url: string, more: () => Promise<void>): Promise<void> {
  // The lock lives in the database itself, so the database must exist first.
  const client = await connectCreating(url);
  try {
    await lock(client);
    await DBOS.migrate(url);
    await more();
  } finally {
    // Ending the session releases the lock.
    await client.end().catch(() => undefined);
  }
}

/**
 * Takes the lock by trying, not by waiting in `pg_advisory_lock`: a session blocked in a statement
 * holds a snapshot, and DBOS's `CREATE INDEX CONCURRENTLY` in the lock holder's migration waits for
 * every such snapshot to go, a deadlock PostgreSQL cannot see (its other half is in JavaScript).
 */
async function lock(client: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ taken: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken',
      [LOCK],
    );
    if (rows[0]!.taken) return;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

async function connectCreating(url: string): Promise<pg.Client> {
  try {
    return await connect(url);
  } catch (error) {
    if ((error as { code?: string }).code !== NO_DATABASE) throw error;
  }
  const admin = await connect(databaseUrl(url, 'postgres'));
  try {
    const name = new URL(url).pathname.slice(1);
    await admin.query(`CREATE DATABASE "${decodeURIComponent(name).replaceAll('"', '""')}"`);
  } catch (error) {
    if (!CREATED_MEANWHILE.has((error as { code?: string }).code ?? '')) throw error;
  } finally {
    await admin.end().catch(() => undefined);
  }
  return connect(url);
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
}

function databaseUrl(url: string, database: string): string {
  const other = new URL(url);
  other.pathname = `/${database}`;
  return other.toString();
}
