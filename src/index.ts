/**
 * toolgen's compiler API, for build scripts and editors. Apps import `@toolgen/runtime` (a package of its own) instead.
 *
 * @example
 * const compiler = new Compiler(defaultOptions(process.cwd()));
 * const { diagnostics, files } = await compiler.build();
 */
export { Compiler, defaultOptions } from './compiler/compile.js';
export type { BuildResult, CompilerOptions, HeldBuild, StreamedBuild } from './compiler/compile.js';
export { CATALOGUE } from './compiler/diagnostics/catalogue.js';
export type { DiagnosticId, Severity } from './compiler/diagnostics/catalogue.js';
export type { Diagnostic, Location } from './compiler/diagnostics/diagnostic.js';
export { renderDiagnostic } from './compiler/diagnostics/render.js';
export type { OutputFile } from './compiler/emit/emit.js';
export { main } from './cli/main.js';
