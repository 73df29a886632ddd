/**
 * Stage 1 for the operations of HTTP APIs: `toolgen.api-lock.json` beside toolgen.config.yaml (read
 * as the MCP lock is, `mcp.ts`), and the config file, whose `apis` entries a problem may point at.
 * Nothing here reads an OpenAPI document: the build reads only the lock.
 */
import path from 'node:path';
import type { DeclaredApi } from '../../remote/declare/api.js';
import { API_LOCK_FILE } from '../../remote/lock/api-format.js';
import { shownPath } from '../layout.js';
import { locatableSource } from './load.js';
import { lockProblem, parseLockText, readDisk, type LoadedLock } from './mcp.js';
import type { TextOverlay } from './overlay.js';
import type { SourceFile } from './source.js';

export interface LoadedApis {
  /** The APIs `apis` declares, sorted by name. */
  readonly apis: readonly DeclaredApi[];
  /** toolgen.config.yaml, to point at its entries. */
  readonly config: SourceFile;
  /** The lock; null when there is none (no API was ever pulled). */
  readonly lock: LoadedLock | null;
}

/**
 * Reads the API lock beside the config file (or `lockFile`); null when the project has no config
 * file, or declares no API and has no API lock. The overlay's text is read first (an editor's).
 *
 * @example (await loadApis('/p/toolgen.config.yaml', apis, '/p'))?.lock?.value // the lock, as JSON.parse read it
 */
export async function loadApis(
  configFile: string | undefined,
  apis: readonly DeclaredApi[],
  root: string,
  lockFile = configFile === undefined ? undefined : path.join(path.dirname(configFile), API_LOCK_FILE),
  overlay: TextOverlay | null = null,
): Promise<LoadedApis | null> {
  if (configFile === undefined || lockFile === undefined) return null;
  const readText = (file: string) => overlay?.get(file) ?? readDisk(file);
  const read = await readText(lockFile);
  if (read === null && apis.length === 0) return null;
  const configText = await readText(configFile);
  const config = locatableSource(
    typeof configText === 'string' ? configText : '',
    configFile,
    shownPath(root, configFile),
  );
  if (read === null) return { apis, config, lock: null };
  const shown = shownPath(root, lockFile);
  if (read instanceof Error) {
    const source = locatableSource('', lockFile, shown);
    return {
      apis,
      config,
      lock: { source, value: undefined, diagnostics: [lockProblem(source, read.message, 0, 'API_LOCK_INVALID')] },
    };
  }
  return { apis, config, lock: parseLockText(locatableSource(read, lockFile, shown), 'API_LOCK_INVALID') };
}
