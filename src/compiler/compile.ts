/**
 * The compiler's entry: `Compiler` (incremental, `incremental.ts`) runs the stages of `pipeline.ts`
 * with the options of `options.ts`.
 */
export { Compiler } from './incremental.js';
export { defaultOptions, PACKAGE_ROOT, type CompilerOptions } from './options.js';
export type { BuildResult, HeldBuild, StreamedBuild } from './pipeline.js';
