/**
 * What makes an Arazzo document one import refuses, each problem at its `file:line:col`: a version
 * other than 1.0 (that alone, said plainly, not the schema's pattern), what the
 * Arazzo 1.0 schema says (`schema.ts`: a misspelt field, a value of the wrong shape, a source name
 * that is not `[A-Za-z0-9_-]+`), and what toolgen names by the document's ids (a workflowId or stepId
 * that is not `[A-Za-z0-9_.-]+`, as Arazzo recommends, or that two workflows or steps share).
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { isPlainObject } from '../language/json.js';
import { closestName, withSuggestion } from '../language/suggest.js';
import type { ArazzoDocument, DocPath } from './document.js';
import { ARAZZO_SCHEMA } from './schema.js';

let validate: ReturnType<Ajv2020['compile']> | undefined;

/** The versions the schema takes: 1.0.x, a pre-release of it too (`1.0.0-rc1`, read with a warning). */
const READ_VERSION = /^1\.0\.\d+(-.+)?$/;

/** At most this many problems are listed: past them, the rest are counted. */
const SHOWN = 20;

/**
 * Every problem of the document, worded for a person; empty when import can read it.
 *
 * @example arazzoProblems(document) // ['pets.arazzo.yaml:12:9: unknown field sucessCriteria in the step; did you mean successCriteria?']
 */
export function arazzoProblems(document: ArazzoDocument): string[] {
  // Another version is one cause: what its fields break of 1.0's schema would only follow from it.
  const version = document.value['arazzo'];
  const where = document.where(['arazzo']);
  if (typeof version !== 'string')
    return [
      `${where}: arazzo is the version as text, such as 1.0.1${typeof version === 'number' ? ` (unquoted, YAML reads it as the number ${version})` : ''}`,
    ];
  if (/^1\.0$/.test(version)) return [`${where}: arazzo ${version} lacks its patch number: write 1.0.1 (or 1.0.0)`];
  if (!READ_VERSION.test(version))
    return [`${where}: this is Arazzo ${version}; toolgen reads Arazzo 1.0 (1.0.0, 1.0.1)`];
  validate ??= new Ajv2020({ allErrors: true, strict: false, validateFormats: false, verbose: true }).compile(
    ARAZZO_SCHEMA,
  );
  const problems: { path: DocPath; text: string }[] = [];
  if (!validate(document.value)) problems.push(...(validate.errors ?? []).flatMap(worded));
  problems.push(...idProblems(document.value));
  const seen = new Set<string>();
  const position = (line: string) => /:(\d+):(\d+): /.exec(line)!.slice(1).map(Number) as [number, number];
  const lines = problems
    .map(({ path, text }) => `${document.where(path)}: ${text}`)
    .filter((line) => !seen.has(line) && seen.add(line))
    .sort((a, b) => position(a)[0] - position(b)[0] || position(a)[1] - position(b)[1]);
  return lines.length > SHOWN ? [...lines.slice(0, SHOWN), `… and ${lines.length - SHOWN} more`] : lines;
}

/** One ajv error as a sentence, or none for the summaries of `oneOf` and `if` (their branches say more). */
function worded(error: ErrorObject): { path: DocPath; text: string }[] {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  const where = describe(path);
  switch (error.keyword) {
    case 'unevaluatedProperties':
    case 'additionalProperties': {
      const field = String(error.params['unevaluatedProperty'] ?? error.params['additionalProperty']);
      const known = knownFields(error.parentSchema);
      return [
        {
          path: [...path, field],
          text: withSuggestion(`unknown field ${field} in ${where}`, closestName(field, known)),
        },
      ];
    }
    case 'required':
      return [{ path, text: `${where} has no ${String(error.params['missingProperty'])}, which Arazzo requires` }];
    case 'type':
      return [{ path, text: `${where} must be ${withArticle(String(error.params['type']))}` }];
    case 'pattern':
      return [{ path, text: `${where} must match ${String(error.params['pattern'])}` }];
    case 'enum':
      return [{ path, text: `${where} must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}` }];
    case 'oneOf':
    case 'anyOf':
    case 'if':
    case 'not':
      return error.keyword === 'oneOf' && error.params['passingSchemas']
        ? [
            {
              path,
              text: `${where} names more than one of what it may name (operationId, operationPath, workflowId; stepId, workflowId)`,
            },
          ]
        : [];
    default:
      return [{ path, text: `${where} ${error.message ?? 'is not what Arazzo allows'}` }];
  }
}

function knownFields(schema: unknown): string[] {
  return isPlainObject(schema) && isPlainObject(schema['properties']) ? Object.keys(schema['properties']) : [];
}

const withArticle = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** `workflows[0].steps[2]` → "the step workflows[0].steps[2]". */
function describe(path: DocPath): string {
  if (path.length === 0) return 'the document';
  const shown = path
    .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index > 0 ? '.' : ''}${segment}`))
    .join('');
  return shown;
}

const ID = /^[A-Za-z0-9_.-]+$/;

function idProblems(value: Record<string, unknown>): { path: DocPath; text: string }[] {
  const problems: { path: DocPath; text: string }[] = [];
  const workflows = Array.isArray(value['workflows']) ? value['workflows'] : [];
  const seen = new Map<string, number>();
  workflows.forEach((workflow, index) => {
    if (!isPlainObject(workflow) || typeof workflow['workflowId'] !== 'string') return;
    const id = workflow['workflowId'];
    const path: DocPath = ['workflows', index, 'workflowId'];
    if (!ID.test(id))
      problems.push({
        path,
        text: `workflowId ${JSON.stringify(id)} is not [A-Za-z0-9_.-]+, as Arazzo recommends: toolgen names the composite and its file by it`,
      });
    const first = seen.get(id.toLowerCase());
    if (first !== undefined)
      problems.push({
        path,
        text: `workflowId ${id} is taken by workflows[${first}] (ids that differ only in case would be one file)`,
      });
    else seen.set(id.toLowerCase(), index);
    const steps = Array.isArray(workflow['steps']) ? workflow['steps'] : [];
    const stepSeen = new Map<string, number>();
    steps.forEach((step, position) => {
      if (!isPlainObject(step) || typeof step['stepId'] !== 'string') return;
      const stepPath: DocPath = ['workflows', index, 'steps', position, 'stepId'];
      if (!ID.test(step['stepId']))
        problems.push({
          path: stepPath,
          text: `stepId ${JSON.stringify(step['stepId'])} is not [A-Za-z0-9_.-]+, as Arazzo recommends`,
        });
      const before = stepSeen.get(step['stepId']);
      if (before !== undefined)
        problems.push({
          path: stepPath,
          text: `stepId ${step['stepId']} is taken by steps[${before}] of this workflow`,
        });
      else stepSeen.set(step['stepId'], position);
    });
  });
  return problems;
}
