/**
 * `toolgen arazzo import FILE [--out DIR]`: every workflow of an Arazzo document as a composite
 * (`DIR/<workflowId>.yaml`), and each OpenAPI source it can read as an entry of `apis` in
 * toolgen.config.yaml (its `baseUrl` read from `${<SOURCE>_URL}`). It never overwrites a tool file, and never changes an
 * API the config already declares otherwise: then it writes nothing. The report has the shape of
 * `toolgen migrate`'s, one file and a tool per workflow.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { isPlainObject } from '../language/json.js';
import { CONFIG_FILES } from '../compiler/session/config-file.js';
import { renderTool } from '../migrate/document.js';
import type { Note } from '../migrate/conversion.js';
import type { MigrationReport } from '../migrate/report.js';
import { ArazzoUsageError, readArazzo, type ArazzoDocument } from './document.js';
import { readSources, type Source } from './sources.js';
import { arazzoProblems } from './validate.js';
import { convertWorkflow } from './workflow.js';

export interface ImportOptions {
  readonly cwd: string;
  /** The project root: where toolgen.config.yaml is, or is written. */
  readonly root: string;
  /** The config file, when the project has one. */
  readonly configFile: string | null;
  /** Where the composites go. */
  readonly outDir: string;
}

export interface ArazzoImport {
  readonly report: MigrationReport;
  /** The APIs added to toolgen.config.yaml, by name: `toolgen api pull` pins them next. */
  readonly added: readonly string[];
}

/**
 * Converts `file` and writes the composites and the config.
 *
 * @example await importArazzo('pets.arazzo.yaml', { cwd, root: cwd, configFile: null, outDir: 'config/tools' })
 */
export async function importArazzo(file: string, options: ImportOptions): Promise<ArazzoImport> {
  const absolute = path.resolve(options.cwd, file);
  const shown = (target: string) => path.relative(options.cwd, target).split(path.sep).join('/') || '.';
  const document = await readArazzo(absolute, shown(absolute));
  const problems = arazzoProblems(document);
  if (problems.length > 0)
    throw new ArazzoUsageError(
      `${document.shown} is not an Arazzo document import can read (above); it wrote nothing`,
      problems,
    );
  const sources = await readSources(document);
  const fileNotes: Note[] = [];
  const version = String(document.value['arazzo']);
  if (!/^1\.0\.\d+$/.test(version))
    fileNotes.push({
      kind: 'warning',
      where: document.where(['arazzo']),
      text: `Arazzo ${version}: read as 1.0 (the version toolgen reads)`,
    });
  (Array.isArray(document.value['sourceDescriptions']) ? document.value['sourceDescriptions'] : []).forEach(
    (entry, index) => {
      if (isPlainObject(entry) && (entry['type'] ?? 'openapi') !== 'openapi')
        fileNotes.push({
          kind: 'warning',
          where: document.where(['sourceDescriptions', index, 'type']),
          text: `${String(entry['name'])}: a source of type ${String(entry['type'])} is not read; steps over it are not converted`,
        });
    },
  );
  const workflows = (document.value['workflows'] as unknown[]).map((_, index) =>
    convertWorkflow(document, sources, index),
  );
  const planned = workflows.map((workflow) => {
    const target = path.join(options.outDir, `${fileName(workflow.name)}.yaml`);
    const yaml = renderTool(
      workflow.tool,
      workflow.conversion.comments,
      `Imported from ${document.shown} (workflow ${workflow.name}) by toolgen arazzo import`,
    );
    return { workflow, target, yaml };
  });
  const refused = planned.filter((entry) => existsSync(entry.target)).map((entry) => shown(entry.target));
  const config = await nextConfig(sources, document, options);
  const report: MigrationReport = {
    files: [
      {
        source: document.shown,
        notes: [...fileNotes, ...config.notes],
        tools: planned.map(({ workflow, target }) => ({
          name: workflow.name,
          yaml: shown(target),
          handler: null,
          written: refused.length === 0,
          notes: inDocumentOrder(workflow.conversion.notes),
        })),
      },
    ],
    refused,
  };
  if (refused.length > 0) return { report, added: [] };
  await mkdir(options.outDir, { recursive: true });
  for (const entry of planned) await writeFile(entry.target, entry.yaml, { flag: 'wx' });
  if (config.text !== null) await writeFile(config.file, config.text);
  return { report, added: config.added };
}

/** Notes by where they are in the document (`file:line:col`), so the report reads top to bottom. */
function inDocumentOrder(notes: readonly Note[]): Note[] {
  const position = (note: Note) => /:(\d+):(\d+)$/.exec(note.where)?.slice(1).map(Number) ?? [0, 0];
  return [...notes].sort((a, b) => {
    const [lineA, colA] = position(a);
    const [lineB, colB] = position(b);
    return lineA! - lineB! || colA! - colB!;
  });
}

/** A workflow's file name: its id, with what a file name should not hold as `_`. */
function fileName(workflowId: string): string {
  return workflowId.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** `pet-coupons` → `PET_COUPONS_URL`: the variable a source's base URL is read from. */
export function baseUrlVariable(source: string): string {
  return `${source
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase()}_URL`;
}

/**
 * toolgen.config.yaml with an `apis` entry for each source it lacks (comments and order kept); an
 * entry of the same name over another document is an error, since steps would call the wrong API. A
 * source whose document could not be read is not added (`api pull` could not pin it, and the build
 * refuses an API the lock does not pin): a warning says so, and what to add once it can be read.
 */
async function nextConfig(
  sources: readonly Source[],
  document: ArazzoDocument,
  options: ImportOptions,
): Promise<{ file: string; text: string | null; added: string[]; notes: Note[] }> {
  const file = options.configFile ?? path.join(options.root, CONFIG_FILES[0]);
  const text = options.configFile ? await readFile(options.configFile, 'utf8') : '';
  const config = parseDocument(text);
  const existing = isPlainObject(config.toJS()) ? ((config.toJS() as Record<string, unknown>)['apis'] ?? {}) : {};
  const added: string[] = [];
  const notes: Note[] = [];
  const shownConfig = path.relative(options.cwd, file).split(path.sep).join('/');
  for (const source of sources) {
    const openapi = /^https?:\/\//i.test(source.location)
      ? source.location
      : path.relative(options.root, source.location).split(path.sep).join('/');
    const declared = isPlainObject(existing) ? existing[source.name] : undefined;
    if (source.api === null) {
      const unread = `${source.name}: ${source.url} could not be read: ${source.problem ?? 'unknown'}`;
      notes.push({
        kind: 'warning',
        where: document.where(['sourceDescriptions', source.index, 'url']),
        text: isPlainObject(declared)
          ? `${unread}; ${shownConfig} declares apis.${source.name} over ${String(declared['openapi'])}, which its steps call`
          : `${unread}; so it is not added to apis (the steps that call it do not build until it is): once it can be read, add ${source.name}: { openapi: <its OpenAPI document>, baseUrl: \${${baseUrlVariable(source.name)}} } under apis in ${shownConfig}, then npx toolgen api pull ${source.name}`,
      });
      continue;
    }
    if (isPlainObject(declared)) {
      const same =
        declared['openapi'] === openapi || path.resolve(options.root, String(declared['openapi'])) === source.location;
      if (!same)
        throw new ArazzoUsageError(
          `${shownConfig} already declares an API '${source.name}' over ${String(declared['openapi'])}, not ${openapi}: rename one of them (the source in the Arazzo document, or the entry under apis), then import again`,
        );
      continue;
    }
    const entry = { openapi, baseUrl: `\${${baseUrlVariable(source.name)}}` };
    if (!isPlainObject(config.toJS()?.['apis'])) config.set('apis', config.createNode({ [source.name]: entry }));
    else config.setIn(['apis', source.name], config.createNode(entry));
    added.push(source.name);
    notes.push({
      kind: 'rewritten',
      where: shownConfig,
      text: `apis.${source.name}: ${openapi}, its base URL read from \${${baseUrlVariable(source.name)}} when a step calls it`,
    });
  }
  return { file, text: added.length > 0 ? config.toString() : null, added, notes };
}
