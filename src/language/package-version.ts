import { readFileSync } from 'node:fs';

let version: string | undefined;

/**
 * toolgen's version, as `initialize` reports it for its MCP client and server: the package's (this
 * file is two folders below the package root, in the CLI's package as in the runtime's), or `0.0.0`
 * where its package.json cannot be read (a bundle).
 */
export function packageVersion(): string {
  if (version === undefined) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version?: unknown;
      };
      version = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
    } catch {
      version = '0.0.0';
    }
  }
  return version;
}
