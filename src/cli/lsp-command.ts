/**
 * `toolgen lsp`: the language server (`lsp/server.ts`) over stdin and stdout. It finds a project as
 * the other commands do (`compiler/session/config-file.ts`: `toolgen.config.yaml` walked up to, the
 * same options), so the editor checks exactly what `toolgen validate` would. stdout carries the
 * protocol: nothing else may write there, so the console goes to stderr.
 */
import { VERSION } from './version.js';

/** Serves until the client says `exit`; the process then exits (the protocol library ends it). */
export async function lspCommand(): Promise<number> {
  for (const method of ['log', 'info', 'debug'] as const) console[method] = console.error;
  const { serveLanguage } = await import('../lsp/server.js');
  serveLanguage({ input: process.stdin, output: process.stdout, version: VERSION });
  await new Promise<never>(() => {});
  return 0;
}
