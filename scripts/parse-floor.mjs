/**
 * The parse floor of `npm run bench`: what any YAML tool must do at least, as a whole process. Reads
 * every `.yaml` file under the given directory and parses it with `yaml`, nothing else.
 *
 * @example node scripts/parse-floor.mjs /tmp/corpus/config/tools
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';

const dir = process.argv[2];
const entries = await readdir(dir, { recursive: true, withFileTypes: true });
const files = entries
  .filter((entry) => entry.isFile() && entry.name.endsWith('.yaml'))
  .map((entry) => path.join(entry.parentPath, entry.name));
const documents = await Promise.all(files.map(async (file) => parseDocument(await readFile(file, 'utf8'))));
if (documents.some((document) => document.errors.length > 0)) process.exitCode = 1;
