/**
 * `toolgen init` (or a typo of `validate`) used to build, then say after seconds that no tool has that
 * name. A lone name that reads like a command, and that no tool under the config dir is called, is a
 * usage error at once: found by a plain text scan of the YAML files, without compiling anything.
 */
import { readFile } from 'node:fs/promises';
import { closestName, withSuggestion } from '../language/suggest.js';
import { findToolFiles } from '../compiler/load/load.js';

/** Words people type after `toolgen` that are commands of other tools (toolgen's own reach their command first). */
const COMMAND_WORDS = [
  'build',
  'compile',
  'generate',
  'gen',
  'watch',
  'test',
  'lint',
  'help',
  'version',
  'start',
  'dev',
];

/**
 * The usage error for `name`, or null when it may well be a tool.
 *
 * @example await commandWordError('init', ['validate', 'check'], 'config/tools') // "'init' is not a toolgen command …"
 */
export async function commandWordError(
  name: string,
  commands: readonly string[],
  configDir: string,
): Promise<string | null> {
  const typo = closestName(name, commands);
  if (!COMMAND_WORDS.includes(name) && typo === null) return null;
  if (await someToolIsNamed(name, configDir)) return null;
  const refused = `'${name}' is not a toolgen command, and no tool under the config dir has that name`;
  const suggested = typo ? `${withSuggestion(refused, `toolgen ${typo}`, '`')} ` : `${refused}; `;
  return `${suggested}commands: ${commands.join(', ')}; \`toolgen NAME\` builds the tool NAME (see \`toolgen --help\`)`;
}

async function someToolIsNamed(name: string, configDir: string): Promise<boolean> {
  const files = await findToolFiles(configDir).catch(() => []);
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const line = new RegExp(`^name:\\s*(['"]?)${escaped}\\1\\s*(#.*)?$`, 'm');
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (line.test(text)) return true;
  }
  return false;
}
