/**
 * Installs test/adapters/mastra's own dependencies: Mastra 0.24 with the zod 3 its AI SDK 4 packages
 * take, kept out of the repository's install so that `npm ci` resolves one consistent tree and prints
 * no peer warnings (that folder's package.json says why). `npm ci` runs this through `prepare`; it
 * does nothing when the folder's install already matches its lock.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = fileURLToPath(new URL('../test/adapters/mastra/', import.meta.url));
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Whether node_modules holds every package of the lock, at its version (npm's own record of it). */
function installed() {
  const record = path.join(folder, 'node_modules', '.package-lock.json');
  if (!existsSync(record)) return false;
  const have = readJson(record).packages ?? {};
  const want = Object.entries(readJson(path.join(folder, 'package-lock.json')).packages ?? {});
  return want.every(([where, entry]) => where === '' || have[where]?.version === entry.version);
}

if (!installed()) {
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: folder,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (npm.status !== 0) process.exit(npm.status ?? 1);
}
