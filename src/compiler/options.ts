/** Where a project's files are: the YAML, the output, the templates and the schema. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CompilerOptions {
  /** The project root; paths in messages and banners are relative to it. */
  readonly root: string;
  readonly configDir: string;
  readonly outDir: string;
  readonly templatesDir: string;
  readonly schemaPath: string;
  /** Globs (relative to the config dir) of the YAML files that are tools; every `.yaml`/`.yml` when empty. */
  readonly include?: readonly string[];
  /** Globs of YAML files under the config dir that are not tools (a `docker-compose.yml`). */
  readonly exclude?: readonly string[];
  /** Type-check function tools' handlers against their YAML (TG2009); on unless false. */
  readonly checkHandlerTypes?: boolean;
}

/** The directory toolgen itself is installed in: its templates and schema are the defaults. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Options for a project at `root`; the templates and schema are toolgen's own unless overridden.
 *
 * @example defaultOptions('/p').outDir // '/p/generated'
 */
export function defaultOptions(root: string, overrides: Partial<CompilerOptions> = {}): CompilerOptions {
  return {
    root,
    configDir: path.resolve(root, overrides.configDir ?? 'config/tools'),
    outDir: path.resolve(root, overrides.outDir ?? 'generated'),
    templatesDir: overrides.templatesDir ?? path.join(PACKAGE_ROOT, 'templates'),
    schemaPath: overrides.schemaPath ?? path.join(PACKAGE_ROOT, 'config', 'tool.schema.json'),
    ...(overrides.include ? { include: overrides.include } : {}),
    ...(overrides.exclude ? { exclude: overrides.exclude } : {}),
    ...(overrides.checkHandlerTypes === false ? { checkHandlerTypes: false } : {}),
  };
}
