#!/usr/bin/env node
import { tuneThisProcess } from './heap.js';
import { main } from './main.js';

tuneThisProcess();
process.exitCode = await main(process.argv.slice(2));
