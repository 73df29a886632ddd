/**
 * Which files under the config dir are tools: apart from `load.ts` so that the build cache can list
 * them without loading the YAML parser.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { byCodeUnits } from '../../language/order.js';
import { selectedBy } from './globs.js';

/** Every `.yaml`/`.yml` file below `dir` that the include and exclude globs select, sorted so builds are the same on every machine. */
export async function findToolFiles(
  dir: string,
  selection: { readonly include?: readonly string[]; readonly exclude?: readonly string[] } = {},
): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const selected = selectedBy(selection.include, selection.exclude);
  return entries
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => selected(path.relative(dir, file).split(path.sep).join('/')))
    .sort(byCodeUnits);
}
