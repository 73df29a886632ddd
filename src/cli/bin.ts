#!/usr/bin/env node
/**
 * The `toolgen` binary. It marks the process as toolgen's own (`heap.ts`), so that one-off builds may
 * tune V8's collector; `main` run by an app leaves its host's flags alone.
 */
import { tuneThisProcess } from './heap.js';
import { main } from './main.js';

tuneThisProcess();
process.exitCode = await main(process.argv.slice(2));
