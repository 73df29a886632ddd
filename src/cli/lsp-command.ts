/**
 * `toolgen lsp`: the language server (`lsp/server.ts`) over stdin and stdout. The CLI hands it the
 * way its commands find a project (`toolgen.config.yaml` walked up to, the same options), so the
 * editor checks exactly what `toolgen validate` would. stdout carries the protocol: nothing else may
 * write there, so the console goes to stderr.
 */
import path from 'node:path';
import { optionsOf } from './commands.js';
import { findConfig } from './config-file.js';
import { VERSION } from './version.js';
import type { FindProject } from '../lsp/server.js';

/** What `toolgen` run in a folder would build: the options, or the config file's problems. */
const findProject: FindProject = async (dir) => {
  const found = await findConfig(dir);
  const configFile = found.file === null ? null : path.resolve(dir, found.file);
  if (found.diagnostics.length > 0) return { options: null, configFile, diagnostics: found.diagnostics };
  return { options: optionsOf(found, { root: dir }), configFile, diagnostics: [] };
};

/** Serves until the client says `exit`; the process then exits (the protocol library ends it). */
export async function lspCommand(): Promise<number> {
  for (const method of ['log', 'info', 'debug'] as const) console[method] = console.error;
  const { serveLanguage } = await import('../lsp/server.js');
  serveLanguage({ input: process.stdin, output: process.stdout, findProject, version: VERSION });
  await new Promise<never>(() => {});
  return 0;
}
