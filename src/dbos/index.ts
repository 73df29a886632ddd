/**
 * `@toolgen/runtime/dbos`: durable runs on DBOS Transact over PostgreSQL, spread over worker processes. Needs
 * `@dbos-inc/dbos-sdk` and `pg` installed beside toolgen (optional peer dependencies); the plain
 * runtime (`@toolgen/runtime`) never loads this.
 */
export { DbosRunStore } from './store.js';
export type { DbosQueueOptions, DbosRunStoreOptions } from './store.js';
export type { DbosRunListing } from './listing.js';
