import { readFileSync } from 'node:fs';

let version: string | undefined;

/** The version `initialize` reports for toolgen: the package's, or `0.0.0` where its package.json cannot be read (a bundle). */
export function clientVersion(): string {
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
