/**
 * Composites as an Arazzo 1.0.1 document (`toolgen arazzo export TOOL…`): each a workflow, each step
 * that calls an API operation a step with its `operationId`, `parameters` (by `in`, from the pin),
 * `requestBody`, `successCriteria` (from `success_when`), `outputs` (from `map_outputs` and the
 * transforms import writes), `onSuccess` (from `next` and a choice step right after it) and
 * `onFailure`; a step calling another of the composites runs it by `workflowId`. What Arazzo cannot
 * say (a loop, a wait, a local tool) is a problem at the step, and the workflow is not written.
 */
import path from 'node:path';
import { isPlainObject } from '../language/json.js';
import { parseTemplate, type Reference } from '../language/template.js';
import type { LockedOperation } from '../remote/lock/api-format.js';
import { exportCondition, exportPath, type ExportScope } from './conditions.js';
import type { DocPath } from './document.js';
import { encodePointer } from './expressions.js';
import { parametersToInputs } from './inputs.js';

type Json = Record<string, unknown>;

export interface ExportInput {
  /** The composites, as their YAML says, by name. */
  readonly tools: ReadonlyMap<string, { readonly value: Json; readonly file: string }>;
  /** The names asked for. */
  readonly names: readonly string[];
  /** The pinned operations, by API and operation. */
  readonly operations: (api: string, operation: string) => LockedOperation | undefined;
  /** Each API's OpenAPI document as the config gives it (a path relative to `root`, or a URL). */
  readonly documents: ReadonlyMap<string, string>;
  readonly root: string;
  /** The folder of the document written: source URLs are relative to it. */
  readonly outDir: string;
}

/** What kept a composite out: where in its file (a path into its YAML, at the key with `key`), and why. */
export interface ExportProblem {
  readonly tool: string;
  readonly file: string;
  readonly path: DocPath;
  readonly key?: true;
  readonly text: string;
}

type Problem = (path: DocPath, text: string, key?: 'key') => void;

/**
 * The document, and what kept a composite out of it.
 *
 * @example exportArazzo({ tools, names: ['reserve_stock'], … }).document.workflows
 */
export function exportArazzo(input: ExportInput): { document: Json; problems: ExportProblem[] } {
  const problems: ExportProblem[] = [];
  const names = withCalled(input);
  const sources = new Set<string>();
  const workflows: Json[] = [];
  for (const name of names) {
    const tool = input.tools.get(name)!;
    const before = problems.length;
    const problem: Problem = (at, text, key) =>
      problems.push({ tool: name, file: tool.file, path: at, ...(key ? { key: true } : {}), text });
    const workflow = exportWorkflow(name, tool.value, { input, exported: names, sources, problem });
    if (problems.length === before) workflows.push(workflow);
  }
  const document: Json = {
    arazzo: '1.0.1',
    info: { title: names.length === 1 ? names[0]! : `Workflows: ${names.join(', ')}`, version: '1.0.0' },
    sourceDescriptions: [...sources].sort().map((api) => ({ name: api, url: sourceUrl(input, api), type: 'openapi' })),
    workflows,
  };
  return { document, problems };
}

/** The names asked for, then every composite they call (workflows run by a step are in the same document). */
function withCalled(input: ExportInput): string[] {
  const names: string[] = [];
  const visit = (name: string) => {
    const tool = input.tools.get(name);
    if (
      names.includes(name) ||
      !tool ||
      !isPlainObject(tool.value['implementation']) ||
      tool.value['implementation']['type'] !== 'composite'
    )
      return;
    names.push(name);
    for (const step of stepsOf(tool.value)) if (typeof step['tool'] === 'string') visit(step['tool']);
  };
  for (const name of input.names) visit(name);
  return names;
}

/** Where a composite's steps are in its YAML. */
const STEPS: DocPath = ['implementation', 'composite', 'steps'];

function stepsOf(tool: Json): Json[] {
  return listedSteps(tool).filter(isPlainObject);
}

/** The composite's `steps` as its YAML lists them, so that a step's place there is its index. */
function listedSteps(tool: Json): unknown[] {
  const implementation = tool['implementation'];
  const composite = isPlainObject(implementation) ? implementation['composite'] : undefined;
  return isPlainObject(composite) && Array.isArray(composite['steps']) ? composite['steps'] : [];
}

function sourceUrl(input: ExportInput, api: string): string {
  const document = input.documents.get(api) ?? '';
  if (/^https?:\/\//i.test(document)) return document;
  const relative = path.relative(input.outDir, path.resolve(input.root, document)).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** What exporting one workflow reads and adds to: the whole export's input, the composites exported, the sources used. */
interface WorkflowExport {
  readonly input: ExportInput;
  readonly exported: readonly string[];
  readonly sources: Set<string>;
  readonly problem: Problem;
}

function exportWorkflow(name: string, tool: Json, { input, exported, sources, problem }: WorkflowExport): Json {
  const steps = stepsOf(tool);
  const listed = listedSteps(tool);
  /** The path of a step's field in the file. */
  const stepPath = (step: Json | undefined, ...rest: DocPath): DocPath => [...STEPS, listed.indexOf(step), ...rest];
  const parameters = Array.isArray(tool['parameters']) ? tool['parameters'].filter(isPlainObject) : [];
  const parameterNames = new Set(parameters.map((parameter) => String(parameter['name'])));
  const callSteps = steps.filter((step) => step['choose'] === undefined);
  // Where each state variable is set: the step and the output's name (the variable's own).
  const setBy = new Map<string, string>();
  for (const step of callSteps) {
    const onSuccess = isPlainObject(step['on_success']) ? step['on_success'] : {};
    for (const variable of [
      ...Object.values(isPlainObject(onSuccess['map_outputs']) ? onSuccess['map_outputs'] : {}),
      ...Object.keys(isPlainObject(onSuccess['transform']) ? onSuccess['transform'] : {}),
    ])
      if (!setBy.has(String(variable))) setBy.set(String(variable), String(step['id']));
  }
  const stateExpression = (variable: string) =>
    setBy.has(variable)
      ? `$steps.${setBy.get(variable)}.outputs.${variable}`
      : parameterNames.has(variable)
        ? `$inputs.${variable}`
        : null;
  const out: Json[] = [];
  steps.forEach((step, index) => {
    const where = (...rest: DocPath) => stepPath(step, ...rest);
    if (step['choose'] !== undefined) {
      const previous = steps[index - 1];
      const reached = steps.some(
        (other) =>
          other !== previous && isPlainObject(other['on_success']) && other['on_success']['next'] === step['id'],
      );
      if (!previous || previous['choose'] !== undefined || reached)
        problem(
          where(),
          `choice step '${String(step['id'])}': Arazzo decides where to go in the actions of the step before it; only a choice right after the step whose result it reads can be written so`,
        );
      return;
    }
    for (const field of ['parallel', 'loop', 'wait', 'when', 'fallbacks', 'cache']) {
      if (step[field] !== undefined) problem(where(field), `${field}: Arazzo has no equivalent`, 'key');
    }
    if (typeof step['tool'] !== 'string') return;
    const id = String(step['id'] ?? step['tool']);
    const scope: ExportScope = { step: id, stateExpression };
    const arazzoStep: Json = { stepId: id };
    if (typeof step['description'] === 'string') arazzoStep['description'] = step['description'];
    const slash = step['tool'].indexOf('/');
    const inputs = isPlainObject(step['inputs']) ? step['inputs'] : {};
    const value = (raw: unknown, at: string) =>
      exportValue(raw, stateExpression, (text) => problem(where('inputs', at), text));
    if (exported.includes(step['tool'])) {
      arazzoStep['workflowId'] = step['tool'];
      const listed = Object.entries(inputs).map(([key, raw]) => ({ name: key, value: value(raw, key) }));
      if (listed.length > 0) arazzoStep['parameters'] = listed;
    } else if (slash > 0) {
      const api = step['tool'].slice(0, slash);
      const operation = step['tool'].slice(slash + 1);
      const pin = input.operations(api, operation);
      if (!pin) {
        problem(where('tool'), `${step['tool']}: the API lock pins no such operation (run npx toolgen api pull)`);
        return;
      }
      sources.add(api);
      arazzoStep['operationId'] = operation;
      const listed = Object.keys(inputs).flatMap((key) => {
        const parameter = pin.parameters.find((candidate) => candidate.key === key);
        return parameter ? [{ name: parameter.name, in: parameter.in, value: value(inputs[key], key) }] : [];
      });
      if (listed.length > 0) arazzoStep['parameters'] = listed;
      for (const key of Object.keys(inputs))
        if (!pin.parameters.some((parameter) => parameter.key === key) && (key !== 'body' || !pin.requestBody))
          problem(
            where('inputs', key),
            key === 'body' ? `${step['tool']} takes no request body` : `${step['tool']} has no parameter '${key}'`,
            'key',
          );
      if (inputs['body'] !== undefined && pin.requestBody)
        arazzoStep['requestBody'] = {
          contentType: pin.requestBody.contentType,
          payload: value(inputs['body'], 'body'),
        };
    } else {
      problem(
        where('tool'),
        `${step['tool']}: Arazzo steps call API operations or workflows; a local or MCP tool has no equivalent`,
      );
      return;
    }
    const success =
      step['success_when'] === undefined
        ? []
        : Array.isArray(step['success_when'])
          ? step['success_when']
          : [step['success_when']];
    const criteria = success.flatMap((condition, position) =>
      exportCondition(String(condition), scope, false).flatMap((criterion) => {
        if ('problem' in criterion) {
          problem(
            where('success_when', ...(Array.isArray(step['success_when']) ? [position] : [])),
            `${String(condition)}: ${criterion.problem}`,
          );
          return [];
        }
        return [criterion];
      }),
    );
    if (criteria.length > 0) arazzoStep['successCriteria'] = criteria;
    const outputs = stepOutputs(step, scope, exported.includes(step['tool']), (text, at) =>
      problem(where('on_success', ...at), text),
    );
    if (Object.keys(outputs).length > 0) arazzoStep['outputs'] = outputs;
    const onSuccess = successActions(step, steps, index, scope, (text, at) =>
      problem(stepPath(steps[index + 1], ...at), text),
    );
    if (onSuccess.length > 0) arazzoStep['onSuccess'] = onSuccess;
    const onFailure = failureActions(step, steps, index, (text, at) => problem(where('on_failure', ...at), text));
    if (onFailure.length > 0) arazzoStep['onFailure'] = onFailure;
    out.push(arazzoStep);
  });
  const workflow: Json = { workflowId: name };
  if (typeof tool['display_name'] === 'string') workflow['summary'] = tool['display_name'];
  if (typeof tool['description'] === 'string') workflow['description'] = tool['description'];
  if (parameters.length > 0) workflow['inputs'] = parametersToInputs(parameters);
  workflow['steps'] = out;
  const returns =
    isPlainObject(tool['returns']) && isPlainObject(tool['returns']['properties'])
      ? Object.keys(tool['returns']['properties'])
      : [];
  const outputs: Json = {};
  for (const variable of returns) {
    const expression = stateExpression(variable);
    if (expression === null)
      problem(
        ['returns', 'properties', variable],
        `${variable}: no step sets it, and no parameter has its name`,
        'key',
      );
    else outputs[variable] = expression;
  }
  if (returns.length > 0) workflow['outputs'] = outputs;
  return workflow;
}

/** A value with templates as a value with runtime expressions: a whole template is one, one inside text is `{$…}`. */
function exportValue(
  raw: unknown,
  stateExpression: (variable: string) => string | null,
  problem: (text: string) => void,
): unknown {
  if (Array.isArray(raw)) return raw.map((item) => exportValue(item, stateExpression, problem));
  if (isPlainObject(raw))
    return Object.fromEntries(
      Object.entries(raw).map(([key, item]) => [key, exportValue(item, stateExpression, problem)]),
    );
  if (typeof raw !== 'string' || !raw.includes('<<')) return raw;
  const parsed = parseTemplate(raw);
  if ('error' in parsed) {
    problem(`${raw}: ${parsed.error.message}`);
    return raw;
  }
  const expression = (reference: Reference) => {
    if (reference.root !== 'state') {
      problem(`<< ${reference.text} >>: Arazzo reads inputs and steps' outputs; map the value to state first`);
      return reference.text;
    }
    const base = stateExpression(reference.name);
    if (base === null) {
      problem(`<< ${reference.text} >>: nothing sets ${reference.name}`);
      return reference.text;
    }
    return reference.path.length > 0 ? `${base}#${encodePointer(reference.path.map(String))}` : base;
  };
  const [first] = parsed.parts;
  if (parsed.whole && first && 'reference' in first) return expression(first.reference);
  return parsed.parts.map((part) => ('reference' in part ? `{${expression(part.reference)}}` : part.text)).join('');
}

/** `map_outputs` and the transforms import writes, as the step's `outputs`. */
function stepOutputs(
  step: Json,
  scope: ExportScope,
  runsWorkflow: boolean,
  problem: (text: string, at: DocPath) => void,
): Json {
  const onSuccess = isPlainObject(step['on_success']) ? step['on_success'] : {};
  const outputs: Json = {};
  for (const [source, variable] of Object.entries(
    isPlainObject(onSuccess['map_outputs']) ? onSuccess['map_outputs'] : {},
  )) {
    const segments = [...source.matchAll(/([^.[\]"]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)].map(
      (match) => match[1] ?? match[2] ?? JSON.parse(`"${match[3]}"`),
    );
    outputs[String(variable)] = runsWorkflow
      ? `$outputs.${segments[0]}${segments.length > 1 ? `#${encodePointer(segments.slice(1))}` : ''}`
      : `$response.body#${encodePointer(segments)}`;
  }
  for (const [variable, expression] of Object.entries(
    isPlainObject(onSuccess['transform']) ? onSuccess['transform'] : {},
  )) {
    const exported = exportPath(String(expression), scope);
    if (exported === null)
      problem(`transform ${variable}: ${String(expression)} is not a path into the step's response`, [
        'transform',
        variable,
      ]);
    else outputs[variable] = exported;
  }
  return outputs;
}

/** The step's `next`, or the choice step right after it, as `onSuccess` actions. */
function successActions(
  step: Json,
  steps: readonly Json[],
  index: number,
  scope: ExportScope,
  problem: (text: string, at: DocPath) => void,
): Json[] {
  const following = steps[index + 1];
  const onSuccess = isPlainObject(step['on_success']) ? step['on_success'] : {};
  const next = onSuccess['next'];
  const choice =
    following && following['choose'] !== undefined && (next === undefined || next === following['id'])
      ? following
      : null;
  const fallThrough = (from: number) => {
    const after = steps[from + 1];
    return after ? String(after['id']) : 'end';
  };
  const action = (target: string, criteria: Json[] | null, position: number) => ({
    name: target === 'end' ? `end_${position + 1}` : `goto_${target}`,
    type: target === 'end' ? 'end' : 'goto',
    ...(target === 'end' ? {} : { stepId: target }),
    ...(criteria ? { criteria } : {}),
  });
  if (choice) {
    const routes = Array.isArray(choice['choose']) ? choice['choose'] : [];
    const actions = routes.filter(isPlainObject).map((route) => {
      const position = routes.indexOf(route);
      const criteria =
        String(route['when']) === 'true'
          ? null
          : exportCondition(String(route['when']), scope, true).flatMap((criterion) => {
              if ('problem' in criterion) {
                problem(`${String(route['when'])}: ${criterion.problem}`, ['choose', position, 'when']);
                return [];
              }
              return [criterion as Json];
            });
      return action(String(route['next']), criteria, position);
    });
    const fallback = String(choice['default']);
    if (fallback !== fallThrough(index + 1)) actions.push(action(fallback, null, actions.length));
    return actions;
  }
  if (typeof next === 'string' && next !== fallThrough(index)) return [action(next, null, 0)];
  return [];
}

/** `on_failure` as `onFailure` actions: a retry, then where to go. */
function failureActions(
  step: Json,
  steps: readonly Json[],
  index: number,
  problem: (text: string, at: DocPath) => void,
): Json[] {
  const onFailure = isPlainObject(step['on_failure']) ? step['on_failure'] : null;
  if (!onFailure) return [];
  const actions: Json[] = [];
  // A retry's criteria read the response: a kind (unmet, timeout) or a code of no status cannot be one.
  for (const field of ['retry_on', 'no_retry_on'])
    (Array.isArray(onFailure[field]) ? onFailure[field].map(String) : []).forEach((code, position) => {
      if (field === 'no_retry_on' || !/^HTTP_\d{3}$/.test(code))
        problem(
          `${field}: ${code}: an Arazzo retry chooses what it retries by criteria on $statusCode (retry_on: HTTP_<status>)`,
          [field, position],
        );
    });
  if (onFailure['action'] === 'retry') {
    const codes = Array.isArray(onFailure['retry_on'])
      ? onFailure['retry_on'].map(String).filter((code) => /^HTTP_\d{3}$/.test(code))
      : [];
    // The published 1.0 schema wants retryAfter and a stepId on a retry: the step itself, after its first wait.
    actions.push({
      name: 'retry',
      type: 'retry',
      stepId: String(step['id']),
      retryAfter: (typeof onFailure['initial_delay_ms'] === 'number' ? onFailure['initial_delay_ms'] : 1000) / 1000,
      retryLimit: typeof onFailure['max_retries'] === 'number' ? onFailure['max_retries'] : 3,
      ...(codes.length > 0
        ? { criteria: [{ condition: codes.map((code) => `$statusCode == ${code.slice(5)}`).join(' || ') }] }
        : {}),
    });
  }
  const goesOn =
    onFailure['action'] === 'continue' ||
    onFailure['continue_on_max_retries'] === true ||
    (onFailure['action'] === undefined && onFailure['next'] !== undefined);
  if (goesOn) {
    const target =
      typeof onFailure['next'] === 'string'
        ? onFailure['next']
        : steps[index + 1]
          ? String(steps[index + 1]!['id'])
          : 'end';
    actions.push(
      target === 'end' ? { name: 'end', type: 'end' } : { name: `goto_${target}`, type: 'goto', stepId: target },
    );
  }
  return actions;
}
