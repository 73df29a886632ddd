/**
 * Every target of the bench, in one table: a ratio to the section's floor unless the name says a unit.
 * A missed one prints MISSED; the exit code stays 0 (a report, not a test).
 */
export const COMPILE_TARGET = 3;
export const EXECUTOR_TARGET = 1.5;
export const PARALLEL_TARGET = 1.1;
export const LOOP_TARGET = 1.2;
export const NO_SDK_TARGET = 1.1;
export const WATCH_TARGET_MS = 100;
export const WATCH_SCALING_TARGET = 1.5;
export const VERSION_TARGET = 1.5;
export const BUILD_TARGET = 2.5;
export const RERUN_TARGET = 1;
export const RSS_TARGET_MIB = 250;
export const VALIDATE_TARGET = 2;
export const LONG_COMPOSITE_TARGET = 15;
export const GRAPH_TARGET = 3;
export const DBOS_ALONE_TARGET = 2;
export const LSP_TARGET_MS = 100;
export const REMOTE_CALL_TARGET = 1.1;
export const API_CALL_TARGET = 1.1;
