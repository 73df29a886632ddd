/**
 * `toolgen migrate SRC DEST`: reads the original system's YAML (a file, or a folder searched at any
 * depth), converts every tool, and writes `DEST/<name>.yaml` (and `DEST/<name>.ts` for a stub).
 * It never overwrites: when any file it would write exists, it writes nothing and says which.
 * One file per idea (`steps.ts`, `templates.ts`, `policies.ts`, `scenarios.ts`, …); `tool.ts` converts
 * one tool, this module the files.
 */
import { isPlainObject } from '../language/json.js';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isScalar, visit, type Document } from 'yaml';
import { findToolFiles, parseSource } from '../compiler/load/load.js';
import { type Note } from './conversion.js';
import type { FileReport, MigrationReport, ToolReport } from './report.js';
import { checkTogether } from './calls.js';
import { migrateTool, toolYaml, type MigratedTool } from './tool.js';

export interface MigrateOptions {
  /** What paths in the report are relative to. */
  readonly cwd: string;
}

interface PlannedFile {
  readonly file: string;
  readonly text: string;
}

/**
 * Migrates SRC into DEST and returns the report. Throws only for usage errors (SRC missing).
 *
 * @example const report = await migrate('legacy/tools', 'config/tools/migrated', { cwd: process.cwd() });
 */
export async function migrate(src: string, dest: string, options: MigrateOptions): Promise<MigrationReport> {
  const source = path.resolve(options.cwd, src);
  const target = path.resolve(options.cwd, dest);
  const shown = (file: string) => path.relative(options.cwd, file).split(path.sep).join('/') || '.';
  if (!existsSync(source)) throw new MigrateUsageError(`'${src}' does not exist: give a YAML file or a folder of them`);
  const tree = statSync(source).isDirectory();
  const files = tree ? await findToolFiles(source) : [source];
  const read = [];
  for (const file of files) read.push({ file, ...(await migrateFile(file, shown(file))) });
  // A slug is the first tool's: a later tool of the same name is reported, and neither written nor
  // read by the others (the original's registry kept one tool of a name too).
  const slugs = new Map<string, string>();
  const duplicates = new Map<MigratedTool, string>();
  for (const { file, tools } of read)
    for (const tool of tools) {
      const taken = slugs.get(tool.slug);
      if (taken === undefined) slugs.set(tool.slug, shown(file));
      else duplicates.set(tool, taken);
    }
  checkTogether(
    read.flatMap(({ tools }) => tools.filter((tool) => !duplicates.has(tool))),
    { tree },
  );
  const planned: PlannedFile[] = [];
  const reports: FileReport[] = read.map(({ file, tools, notes }) => ({
    source: shown(file),
    notes,
    tools: tools.map((tool): ToolReport => {
      const yamlFile = path.join(target, `${tool.slug}.yaml`);
      const handlerFile = tool.stub === null ? null : path.join(target, `${tool.slug}.ts`);
      const taken = duplicates.get(tool);
      if (taken === undefined) {
        planned.push({ file: yamlFile, text: toolYaml(tool) });
        if (handlerFile !== null) planned.push({ file: handlerFile, text: tool.stub! });
      } else
        tool.conversion.note(
          'warning',
          'name',
          `another tool (from ${taken}) already goes to ${shown(yamlFile)}: this one is not written, nor counted as written; rename one of them`,
        );
      return {
        name: tool.name,
        yaml: shown(yamlFile),
        handler: handlerFile === null ? null : shown(handlerFile),
        written: taken === undefined,
        notes: tool.conversion.notes,
      };
    }),
  }));
  const refused = planned.filter((file) => existsSync(file.file)).map((file) => shown(file.file));
  if (refused.length === 0) {
    await mkdir(target, { recursive: true });
    for (const file of planned) await writeFile(file.file, file.text, { flag: 'wx' });
  }
  return { files: reports, refused };
}

/** Bad usage, reported in one line before anything is read or written. */
export class MigrateUsageError extends Error {}

async function migrateFile(file: string, shownPath: string): Promise<{ tools: MigratedTool[]; notes: Note[] }> {
  const loaded = parseSource(await readFile(file, 'utf8'), file, shownPath);
  const errors = loaded.diagnostics.filter((found) => found.severity === 'error');
  if (errors.length > 0 || loaded.value === null) {
    return {
      tools: [],
      notes: errors.map((found) => ({
        kind: 'warning' as const,
        where: `${found.location?.line ?? 1}:${found.location?.column ?? 1}`,
        text: `not migrated: ${found.message}`,
      })),
    };
  }
  const value = versionsAsWritten(loaded.source.document);
  if (isPlainObject(value) && Array.isArray(value['tools'])) {
    const notes: Note[] = [];
    const tools = value['tools'].filter(isPlainObject).map((tool) => migrateTool(tool, shownPath));
    notes.push({
      kind: 'split',
      where: 'tools',
      text: `${tools.length} tools → one file each: ${tools.map((tool) => `${tool.slug}.yaml`).join(', ')}`,
    });
    for (const key of Object.keys(value)) {
      if (key !== 'tools')
        notes.push({
          kind: 'warning',
          where: key,
          text: 'a field beside tools: belongs to no one tool, and is not carried over',
        });
    }
    return { tools, notes };
  }
  if (isPlainObject(value) && ('name' in value || 'implementation' in value))
    return { tools: [migrateTool(value, shownPath)], notes: [] };
  return {
    tools: [],
    notes: [
      {
        kind: 'warning',
        where: '',
        text: 'not a tool of the original format (no name, implementation or tools): skipped',
      },
    ],
  };
}

/** The plain value, with every `version: 1.0` kept as the text `1.0` (YAML reads it as the number 1). */
function versionsAsWritten(document: Document.Parsed): unknown {
  visit(document, {
    Pair(_, pair) {
      if (
        isScalar(pair.key) &&
        pair.key.value === 'version' &&
        isScalar(pair.value) &&
        typeof pair.value.value === 'number' &&
        pair.value.source
      ) {
        pair.value.value = pair.value.source;
      }
    },
  });
  return document.toJS({ maxAliasCount: 1000 });
}
