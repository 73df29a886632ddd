/**
 * The store `toolgen studio` shows: a file store (`--store DIR`), or a `DbosRunStore`'s database
 * (`--dbos URL`), whose package (`@toolgen/runtime/dbos`, with `@dbos-inc/dbos-sdk` and `pg`) is
 * imported only then. What cannot be opened is a usage error in one line: a URL that is not
 * PostgreSQL's, a database that cannot be reached or holds no runs (its password never printed).
 */
import type { ListedRunStore } from '../runtime/index.js';
import { UsageError } from './exit.js';
import { openStore } from './runs.js';

export type StudioStoreFlag = { readonly dir: string } | { readonly dbos: string };

export interface StudioStore {
  readonly store: ListedRunStore;
  /** What the studio's line on stderr calls it. */
  readonly name: string;
  /** Starts the store once the studio's executor uses it (DBOS launches here). */
  readonly start: () => Promise<void>;
  readonly close: () => Promise<void>;
}

/** Opens the store a flag names; a `UsageError` when it cannot. */
export async function openStudioStore(root: string, flag: StudioStoreFlag): Promise<StudioStore> {
  if ('dir' in flag) {
    const store = openStore(root, flag.dir);
    return { store, name: flag.dir, start: async () => {}, close: async () => store.close() };
  }
  const name = shownUrl(flag.dbos);
  let dbos: typeof import('../dbos/index.js');
  try {
    dbos = await import('../dbos/index.js');
  } catch (error) {
    throw new UsageError(
      `--dbos needs @dbos-inc/dbos-sdk and pg installed beside toolgen (npm install @dbos-inc/dbos-sdk pg): ${messageOf(error)}`,
    );
  }
  const store = new dbos.DbosRunStore({ systemDatabaseUrl: flag.dbos, logLevel: 'error' });
  const unreachable = (error: unknown) =>
    new UsageError(`cannot reach the database of --dbos ${name}: ${messageOf(error).replaceAll(flag.dbos, name)}`);
  let found: boolean;
  try {
    found = await store.hasJournal();
  } catch (error) {
    await store.shutdown().catch(() => undefined);
    throw unreachable(error);
  }
  if (!found) {
    await store.shutdown().catch(() => undefined);
    throw new UsageError(
      `the database of --dbos ${name} holds no toolgen runs (no "toolgen".runs table): give the systemDatabaseUrl of the DbosRunStore whose runs to show`,
    );
  }
  return {
    store,
    name,
    start: async () => {
      try {
        await store.launch();
      } catch (error) {
        throw unreachable(error);
      }
    },
    close: () => store.shutdown(),
  };
}

/** A PostgreSQL URL as it may be printed: its password hidden. */
function shownUrl(url: string): string {
  // What was given is repeated only when it cannot hold a password.
  const notUrl = new UsageError(
    `--dbos takes a PostgreSQL URL (postgres://user@host:5432/database)${url.includes('@') ? '' : `, not '${url}'`}`,
  );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw notUrl;
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw notUrl;
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  const message = error instanceof Error ? error.message : String(error);
  return message || (error as { code?: string }).code || 'no reason given';
}
