/**
 * One Arazzo workflow as a toolgen composite: `inputs` → parameters, each step → a step calling
 * `<source>/<operation>` (or the composite another workflow became), its `successCriteria` →
 * `success_when`, its `outputs` → `map_outputs` and transforms into state, `onSuccess` → `next` or a
 * choice step after it, `onFailure` → `on_failure`, the workflow's `outputs` → `returns`. What has no
 * equivalent is reported where it is (`Conversion`), never dropped in silence.
 */
import { isPlainObject } from '../language/json.js';
import { Conversion } from '../migrate/conversion.js';
import { criterionToJsonata, expressionJsonata, type CriteriaScope, type Criterion } from './criteria.js';
import type { ArazzoDocument, DocPath } from './document.js';
import { jsonataName, jsonataPath, PATH_NAME, readExpression, templatePath } from './expressions.js';
import { inputsToParameters } from './inputs.js';
import { byOperationId, byOperationPath, type FoundOperation, type Source } from './sources.js';
import { templateValue } from './values.js';

type Json = Record<string, unknown>;

export interface ConvertedWorkflow {
  readonly name: string;
  readonly tool: Json;
  readonly conversion: Conversion;
}

interface Context {
  readonly document: ArazzoDocument;
  readonly sources: readonly Source[];
  readonly workflows: ReadonlyMap<string, Json>;
  readonly conversion: Conversion;
  /** `workflows[i]`: where this workflow is. */
  readonly at: DocPath;
  /** Step id in the document → step id in the composite. */
  readonly ids: ReadonlyMap<string, string>;
  /** `<step>\u0000<output>` → the state variable that holds it. */
  readonly outputs: ReadonlyMap<string, string>;
  /** Every step id the composite has so far, choice steps included: a choice step's id is not one of them. */
  readonly stepIds: Set<string>;
}

/** How many steps a run takes before toolgen stops it as a loop, unless the composite says otherwise. */
const DEFAULT_MAX_STEP_EXECUTIONS = 1000;

/** Names the runtime gives a meaning of its own: no state variable takes them. */
const RESERVED = new Set([
  'state',
  'steps',
  'responses',
  'chain_id',
  'chain_name',
  'started_at',
  '__proto__',
  'constructor',
  'prototype',
]);

/**
 * The composite `workflows[index]` becomes.
 *
 * @example convertWorkflow(document, sources, 0).tool.implementation
 */
export function convertWorkflow(
  document: ArazzoDocument,
  sources: readonly Source[],
  index: number,
): ConvertedWorkflow {
  const workflows = new Map<string, Json>();
  for (const workflow of document.value['workflows'] as unknown[])
    if (isPlainObject(workflow) && typeof workflow['workflowId'] === 'string')
      workflows.set(workflow['workflowId'], workflow);
  const workflow = (document.value['workflows'] as Json[])[index]!;
  const at: DocPath = ['workflows', index];
  const conversion = new Conversion();
  const name = String(workflow['workflowId']);
  const steps = (Array.isArray(workflow['steps']) ? workflow['steps'] : []).filter(isPlainObject);
  const inputs = resolved(document, workflow['inputs']);
  const parameters = inputsToParameters(inputs, {
    where: (path) => document.where([...at, 'inputs', ...path]),
    note: (kind, where, text) => conversion.note(kind, where, text),
    resolve: document.resolve,
  });
  const taken = new Set([...RESERVED, ...parameters.map((parameter) => String(parameter['name']))]);
  const ids = stepIds(steps, document, at, conversion);
  const outputs = outputVariables(workflow, steps, taken);
  const context: Context = {
    document,
    sources,
    workflows,
    conversion,
    at,
    ids,
    outputs,
    stepIds: new Set(ids.values()),
  };
  const converted = [
    ...dependencies(workflow, context, parameters),
    ...steps.flatMap((step, position) => convertStep(step, position, steps, workflow, context)),
  ];
  const returns = workflowReturns(workflow, context);
  // Every step may run twice (a goto back, a branch) before toolgen's bound stops a run that loops.
  const bound = converted.length * 2;
  if (bound > DEFAULT_MAX_STEP_EXECUTIONS)
    conversion.note(
      'changed',
      document.where([...at, 'steps']),
      `max_step_executions: ${bound}, twice its ${converted.length} steps (toolgen's default, ${DEFAULT_MAX_STEP_EXECUTIONS}, would stop it first)`,
    );
  const text = (key: string) => (typeof workflow[key] === 'string' ? (workflow[key] as string).trim() : undefined);
  const description = text('description') ?? text('summary') ?? `The Arazzo workflow ${name}.`;
  const tool: Json = {
    name,
    ...(text('description') !== undefined && text('summary') !== undefined ? { display_name: text('summary') } : {}),
    description,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(returns ? { returns } : {}),
    implementation: {
      type: 'composite',
      composite: { steps: converted, ...(bound > DEFAULT_MAX_STEP_EXECUTIONS ? { max_step_executions: bound } : {}) },
    },
  };
  return { name, tool, conversion };
}

/** An `inputs` schema, a `$ref` into the document's components followed. */
function resolved(document: ArazzoDocument, value: unknown): unknown {
  if (isPlainObject(value) && typeof value['$ref'] === 'string') return document.resolve(value['$ref']);
  return value;
}

/** Step ids as toolgen takes them (a letter or `_` first): `1st` → `step_1st`. */
function stepIds(
  steps: readonly Json[],
  document: ArazzoDocument,
  at: DocPath,
  conversion: Conversion,
): Map<string, string> {
  const ids = new Map<string, string>();
  steps.forEach((step, index) => {
    const id = String(step['stepId'] ?? `step_${index + 1}`);
    const valid = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(id) ? id : `step_${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    if (valid !== id) conversion.note('renamed', document.where([...at, 'steps', index, 'stepId']), `${id} → ${valid}`);
    ids.set(id, valid);
  });
  return ids;
}

/**
 * Where each step output lives in state: the name of the workflow output that returns it, else its
 * own name, else `<step>_<name>` when another output or a parameter has it.
 */
function outputVariables(workflow: Json, steps: readonly Json[], taken: Set<string>): Map<string, string> {
  const preferred = new Map<string, string>();
  if (isPlainObject(workflow['outputs']))
    for (const [name, value] of Object.entries(workflow['outputs'])) {
      const expression = typeof value === 'string' ? readExpression(value) : null;
      if (expression?.kind === 'stepOutput' && expression.pointer.length === 0) {
        const key = `${expression.step}\u0000${expression.name}`;
        if (!preferred.has(key) && isIdentifier(name) && !taken.has(name)) preferred.set(key, name);
      }
    }
  const variables = new Map<string, string>();
  for (const step of steps) {
    if (!isPlainObject(step['outputs'])) continue;
    const id = String(step['stepId']);
    for (const output of Object.keys(step['outputs'])) {
      const key = `${id}\u0000${output}`;
      const candidates = [preferred.get(key), identifier(output), identifier(`${id}_${output}`)];
      let chosen = candidates.find(
        (candidate) =>
          candidate !== undefined &&
          !taken.has(candidate) &&
          ![...preferred.values()].some((name) => name === candidate && preferred.get(key) !== name),
      );
      for (let n = 2; chosen === undefined; n++) {
        const candidate = `${identifier(`${id}_${output}`)}_${n}`;
        if (!taken.has(candidate)) chosen = candidate;
      }
      taken.add(chosen);
      variables.set(key, chosen);
    }
  }
  return variables;
}

const isIdentifier = (name: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);

function identifier(name: string): string {
  const plain = name.replace(/[^A-Za-z0-9_]+/g, '_');
  return /^[A-Za-z_]/.test(plain) ? plain : `_${plain}`;
}

/** `dependsOn`: each workflow named runs first, as a step of this composite, given the inputs of the same name. */
function dependencies(workflow: Json, context: Context, parameters: readonly Json[]): Json[] {
  if (!Array.isArray(workflow['dependsOn'])) return [];
  const names = new Set(parameters.map((parameter) => String(parameter['name'])));
  return workflow['dependsOn'].flatMap((dependency, index) => {
    const where = context.document.where([...context.at, 'dependsOn', index]);
    const target = context.workflows.get(String(dependency));
    if (!target) {
      context.conversion.note(
        'warning',
        where,
        `dependsOn ${String(dependency)}: not a workflow of this document; left out`,
      );
      return [];
    }
    const theirs = inputsToParameters(resolved(context.document, target['inputs']), {
      where: () => where,
      note: () => {},
      resolve: context.document.resolve,
    });
    const inputs = Object.fromEntries(
      theirs
        .filter((parameter) => names.has(String(parameter['name'])))
        .map((parameter) => [parameter['name'], `<< state.${String(parameter['name'])} >>`]),
    );
    context.conversion.note(
      'changed',
      where,
      `dependsOn ${String(dependency)}: runs first, as step '${identifier(String(dependency))}' of this composite, given the inputs of the same name`,
    );
    return [
      {
        id: identifier(String(dependency)),
        tool: String(dependency),
        ...(Object.keys(inputs).length > 0 ? { inputs } : {}),
      },
    ];
  });
}

function convertStep(step: Json, position: number, steps: readonly Json[], workflow: Json, context: Context): Json[] {
  const at: DocPath = [...context.at, 'steps', position];
  const where = (path: DocPath) => context.document.where([...at, ...path]);
  const arazzoId = String(step['stepId']);
  const id = context.ids.get(arazzoId)!;
  const stateOf = (stepId: string, output: string) => context.outputs.get(`${stepId}\u0000${output}`);
  const target = stepTarget(step, context, where);
  const out: Json = { id };
  if (typeof step['description'] === 'string') out['description'] = step['description'].trim();
  out['tool'] = target.tool;
  const inputs = stepInputs({ step, workflow, target, at, stateOf }, context);
  if (Object.keys(inputs).length > 0) out['inputs'] = inputs;
  const scope: CriteriaScope = { step: id, stateOf };
  const success = successConditions(step, target, scope, context, where);
  if (success.length > 0) out['success_when'] = success.length === 1 ? success[0] : success;
  const parts: StepParts = { step, workflow, target, at, stateOf };
  const onSuccess = outputsOf(parts, id, context);
  const next = successNext(parts, { position, steps, scope }, context);
  if (next.next !== undefined) onSuccess['next'] = next.next;
  if (Object.keys(onSuccess).length > 0) out['on_success'] = onSuccess;
  const onFailure = failureActions(step, workflow, position, context);
  if (onFailure) out['on_failure'] = onFailure;
  return next.choice ? [out, next.choice] : [out];
}

interface Target {
  readonly tool: string;
  readonly operation: FoundOperation | null;
  readonly workflow: Json | null;
}

function stepTarget(step: Json, context: Context, where: (path: DocPath) => string): Target {
  if (typeof step['workflowId'] === 'string') {
    const workflow = context.workflows.get(step['workflowId']) ?? null;
    if (!workflow)
      context.conversion.note(
        'warning',
        where(['workflowId']),
        `${step['workflowId']}: only a workflow of this document can be run by a step`,
      );
    return { tool: step['workflowId'], operation: null, workflow };
  }
  const found =
    typeof step['operationId'] === 'string'
      ? byOperationId(context.sources, step['operationId'])
      : typeof step['operationPath'] === 'string'
        ? byOperationPath(context.sources, step['operationPath'])
        : 'a step names an operationId, an operationPath or a workflowId';
  const field = typeof step['operationId'] === 'string' ? 'operationId' : 'operationPath';
  if (typeof found === 'string') {
    context.conversion.note(
      'warning',
      where([field]),
      step[field] === undefined ? found : `${String(step[field])}: ${found}`,
    );
    return { tool: String(step['operationId'] ?? step['operationPath'] ?? 'unknown'), operation: null, workflow: null };
  }
  if (found.pin === null)
    context.conversion.note(
      'warning',
      where([field]),
      `the source '${found.source.name}' could not be read (${found.source.problem ?? 'unknown'}): parameters are named as the step writes them, unchecked`,
    );
  if (found.pathItem)
    context.conversion.note(
      'changed',
      where([field]),
      `it points at a path item, not an operation; the path's only operation, ${found.pin!.method.toUpperCase()} ${found.pin!.path}, is taken`,
    );
  return { tool: `${found.source.name}/${found.name}`, operation: found, workflow: null };
}

/** The step's input object: each parameter by its key in the operation (`pets/getPet`'s `petId`), and `body`. */
/** What converting one step's parts needs besides the workflow's context. */
interface StepParts {
  readonly step: Json;
  readonly workflow: Json;
  readonly target: Target;
  /** `workflows[i].steps[j]`. */
  readonly at: DocPath;
  readonly stateOf: (step: string, output: string) => string | undefined;
}

function stepInputs({ step, workflow, target, at, stateOf }: StepParts, context: Context): Json {
  const where = (path: DocPath) => context.document.where([...at, ...path]);
  const problem = (path: DocPath) => (_: readonly (string | number)[], text: string) =>
    context.conversion.note('warning', where(path), `${text}; left as text`);
  const inputs: Json = {};
  const listed = [
    ...(target.workflow
      ? []
      : (Array.isArray(workflow['parameters']) ? workflow['parameters'] : []).map((parameter, index) => ({
          parameter,
          path: [...context.at, 'parameters', index] as DocPath,
        }))),
    ...(Array.isArray(step['parameters']) ? step['parameters'] : []).map((parameter, index) => ({
      parameter,
      path: [...at, 'parameters', index] as DocPath,
    })),
  ];
  for (const { parameter: raw, path } of listed) {
    const parameter = withReference(raw, context, path);
    if (!parameter) continue;
    const name = String(parameter['name']);
    const key = target.workflow ? name : parameterKey(target.operation, name, parameter['in'], context, path);
    if (key === null) continue;
    inputs[key] = templateValue(parameter['value'], {
      stateOf,
      problem: (_, text) =>
        context.conversion.note('warning', context.document.where([...path, 'value']), `${text}; left as text`),
    });
  }
  const body = step['requestBody'];
  if (isPlainObject(body)) {
    const pinned = target.operation?.pin?.requestBody;
    if (
      pinned &&
      typeof body['contentType'] === 'string' &&
      body['contentType'].split(';')[0]!.trim().toLowerCase() !== pinned.contentType.split(';')[0]!.trim().toLowerCase()
    )
      context.conversion.note(
        'warning',
        where(['requestBody', 'contentType']),
        `${body['contentType']}: the operation's pinned body is ${pinned.contentType}, which is what toolgen sends`,
      );
    let payload = body['payload'];
    if (typeof payload === 'string') {
      try {
        payload = JSON.parse(payload);
      } catch {
        // Not JSON text: sent as the string it is.
      }
    }
    if (Array.isArray(body['replacements']))
      body['replacements'].forEach((replacement, index) => {
        if (!isPlainObject(replacement) || typeof replacement['target'] !== 'string') return;
        const replaced = replaceAt(payload, replacement['target'], replacement['value']);
        if (replaced.ok) payload = replaced.value;
        else
          context.conversion.note(
            'warning',
            where(['requestBody', 'replacements', index]),
            `${replacement['target']}: ${replaced.problem}`,
          );
      });
    inputs['body'] = templateValue(payload, { stateOf, problem: problem(['requestBody', 'payload']) });
  }
  return inputs;
}

/** A parameter, with a `reference` to `$components.parameters.<name>` followed (its `value` overridden by the step's). */
function withReference(raw: unknown, context: Context, path: DocPath): Json | null {
  if (!isPlainObject(raw)) return null;
  if (typeof raw['reference'] !== 'string') return typeof raw['name'] === 'string' ? raw : null;
  const match = /^\$components\.parameters\.(.+)$/.exec(raw['reference']);
  const components = context.document.value['components'];
  const found =
    match && isPlainObject(components) && isPlainObject(components['parameters'])
      ? components['parameters'][match[1]!]
      : undefined;
  if (!isPlainObject(found)) {
    context.conversion.note(
      'warning',
      context.document.where([...path, 'reference']),
      `${raw['reference']}: no such parameter in components; left out`,
    );
    return null;
  }
  return { ...found, ...('value' in raw ? { value: raw['value'] } : {}) };
}

/** The input key of a parameter; null for a header toolgen sets itself (reported). */
function parameterKey(
  operation: FoundOperation | null,
  name: string,
  where: unknown,
  context: Context,
  path: DocPath,
): string | null {
  const pinned = operation?.pin?.parameters ?? null;
  if (pinned === null) return name;
  const match = pinned.find((parameter) => parameter.name === name && (where === undefined || parameter.in === where));
  if (match) return match.key;
  if (where === 'header' && ['accept', 'content-type', 'authorization'].includes(name.toLowerCase())) {
    context.conversion.note(
      'warning',
      context.document.where([...path, 'name']),
      `${name}: toolgen sets this header itself (credentials come from the API's headers in toolgen.config.yaml); left out`,
    );
    return null;
  }
  context.conversion.note(
    'warning',
    context.document.where([...path, 'name']),
    `${String(where ?? '')} parameter ${name}: the operation has none; kept (the build will say so)`,
  );
  return name;
}

function replaceAt(
  payload: unknown,
  pointer: string,
  value: unknown,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  const segments = pointer
    .replace(/^\//, '')
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const copy: unknown = structuredClone(payload);
  let parent: unknown = copy;
  for (const segment of segments.slice(0, -1)) {
    if (!isPlainObject(parent) && !Array.isArray(parent))
      return { ok: false, problem: 'the payload has nothing there' };
    parent = (parent as Record<string, unknown>)[segment];
  }
  if (!isPlainObject(parent) && !Array.isArray(parent)) return { ok: false, problem: 'the payload has nothing there' };
  (parent as Record<string, unknown>)[segments.at(-1)!] = value;
  return { ok: true, value: copy };
}

/** `successCriteria` as conditions; a status toolgen fails before them is reported. */
function successConditions(
  step: Json,
  target: Target,
  scope: CriteriaScope,
  context: Context,
  where: (path: DocPath) => string,
): string[] {
  if (!Array.isArray(step['successCriteria'])) return [];
  const conditions: string[] = [];
  step['successCriteria'].forEach((raw, index) => {
    if (!isPlainObject(raw) || typeof raw['condition'] !== 'string') return;
    const criterion = raw as unknown as Criterion;
    if (target.workflow && /\$statusCode|\$response\./.test(criterion.condition + (criterion.context ?? ''))) {
      context.conversion.note(
        'changed',
        where(['successCriteria', index]),
        `${criterion.condition}: a step that runs a workflow has no response; it succeeds when the workflow does`,
      );
      return;
    }
    const translated = criterionToJsonata(criterion, scope);
    if ('problem' in translated) {
      context.conversion.note(
        'warning',
        where(['successCriteria', index]),
        `${criterion.condition}: ${translated.problem}; left out`,
      );
      return;
    }
    reportStatuses(criterion.condition, target, context, where(['successCriteria', index]));
    conditions.push(translated.jsonata);
  });
  return conditions;
}

/** A criterion that accepts only statuses, one of which the operation does not list as a success: toolgen fails such a response first. */
function reportStatuses(condition: string, target: Target, context: Context, where: string): void {
  const pin = target.operation?.pin;
  if (!pin) return;
  const success = Object.keys(pin.responses);
  // Only a condition that accepts a list of statuses (`$statusCode == 200 || $statusCode == 302`) says which it accepts.
  for (const status of statusList(condition) ?? []) {
    if (!success.some((key) => key === status || (key.endsWith('XX') && key[0] === status[0])))
      context.conversion.note(
        'changed',
        where,
        `$statusCode == ${status}: toolgen fails a response whose status the operation does not list as a success (${success.join(', ')}) before its success_when`,
      );
  }
}

/** `outputs` as `map_outputs` (a field of the body) and transforms (a status, a header, the whole body). */
function outputsOf({ step, target, at, stateOf }: StepParts, id: string, context: Context): Json {
  const where = (path: DocPath) => context.document.where([...at, ...path]);
  if (!isPlainObject(step['outputs'])) return {};
  const mapped: Record<string, string> = {};
  const transform: Record<string, string> = {};
  for (const [name, value] of Object.entries(step['outputs'])) {
    const variable = stateOf(String(step['stepId']), name)!;
    const expression = typeof value === 'string' ? readExpression(value) : null;
    if (expression === null) {
      context.conversion.note(
        'warning',
        where(['outputs', name]),
        `${String(value)}: an output is a runtime expression; left out`,
      );
      continue;
    }
    const segments =
      expression.kind === 'body' && !target.workflow
        ? expression.pointer
        : expression.kind === 'outputs' && target.workflow
          ? [expression.name, ...expression.pointer]
          : null;
    const field = segments === null ? null : mapPath(segments);
    // A field another output maps already is read again by a transform: map_outputs has one entry per field.
    if (field !== null && mapped[field] === undefined) {
      mapped[field] = variable;
      continue;
    }
    if (field !== null) {
      transform[variable] = jsonataPath(`steps.${jsonataName(id)}`, segments!);
      continue;
    }
    if (
      target.workflow &&
      (expression.kind === 'statusCode' || expression.kind === 'header' || expression.kind === 'body')
    ) {
      context.conversion.note(
        'warning',
        where(['outputs', name]),
        `${String(value)}: a step that runs a workflow has no response; read its outputs ($outputs.<name>); left out`,
      );
      continue;
    }
    try {
      transform[variable] =
        expression.kind === 'body'
          ? jsonataPath(`steps.${jsonataName(id)}`, expression.pointer)
          : expressionJsonata(expression, { step: id, stateOf });
    } catch (error) {
      // The message names the expression.
      context.conversion.note('warning', where(['outputs', name]), `${(error as Error).message}; left out`);
    }
  }
  return {
    ...(Object.keys(mapped).length > 0 ? { map_outputs: mapped } : {}),
    ...(Object.keys(transform).length > 0 ? { transform } : {}),
  };
}

/** A `map_outputs` source for a pointer into the output (`items[0].id`); null when a path cannot say it (it starts with an index, or is empty). */
function mapPath(segments: readonly string[]): string | null {
  const [first, ...rest] = segments;
  return first === undefined || !PATH_NAME.test(first) ? null : templatePath(first, rest);
}

/** An action, with a `reference` to `$components.successActions.<name>` (or failureActions) followed. */
function actions(
  list: unknown,
  kind: 'successActions' | 'failureActions',
  context: Context,
  base: DocPath,
): { action: Json; path: DocPath }[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((raw, index) => {
    const path = [...base, index];
    if (!isPlainObject(raw)) return [];
    if (typeof raw['reference'] !== 'string') return [{ action: raw, path }];
    const match = new RegExp(`^\\$components\\.${kind}\\.(.+)$`).exec(raw['reference']);
    const components = context.document.value['components'];
    const found =
      match && isPlainObject(components) && isPlainObject(components[kind]) ? components[kind][match[1]!] : undefined;
    if (!isPlainObject(found)) {
      context.conversion.note(
        'warning',
        context.document.where([...path, 'reference']),
        `${raw['reference']}: no such action in components; left out`,
      );
      return [];
    }
    return [{ action: found, path }];
  });
}

/**
 * `onSuccess` (else the workflow's `successActions`): one action without criteria is `next`; actions
 * with criteria become a choice step after the step, tried in their order, whose default is the next step.
 */
function successNext(
  { step, workflow }: StepParts,
  {
    position,
    steps,
    scope,
  }: { readonly position: number; readonly steps: readonly Json[]; readonly scope: CriteriaScope },
  context: Context,
): { next?: string; choice?: Json } {
  const own = step['onSuccess'] !== undefined;
  const listed = own
    ? actions(step['onSuccess'], 'successActions', context, [...context.at, 'steps', position, 'onSuccess'])
    : actions(workflow['successActions'], 'successActions', context, [...context.at, 'successActions']);
  const following = steps[position + 1];
  const fallThrough = following ? context.ids.get(String(following['stepId']))! : 'end';
  const routes: { when: string; next: string }[] = [];
  for (const { action, path } of listed) {
    const next = actionTarget(action, context, path);
    if (next === null) continue;
    const criteria = Array.isArray(action['criteria']) ? action['criteria'] : [];
    const conditions: string[] = [];
    let ok = true;
    criteria.forEach((raw, index) => {
      if (!ok || !isPlainObject(raw) || typeof raw['condition'] !== 'string') return;
      const translated = criterionToJsonata(raw as unknown as Criterion, scope);
      if ('problem' in translated) {
        context.conversion.note(
          'warning',
          context.document.where([...path, 'criteria', index]),
          `${raw['condition']}: ${translated.problem}; the action ${String(action['name'] ?? '')} is left out`,
        );
        ok = false;
      } else conditions.push(translated.jsonata);
    });
    if (!ok) continue;
    routes.push({
      when:
        conditions.length === 0
          ? 'true'
          : conditions
              .map((condition) =>
                conditions.length > 1 && / (and|or) /.test(condition) ? `(${condition})` : condition,
              )
              .join(' and '),
      next,
    });
    if (conditions.length === 0) break;
  }
  if (routes.length === 0) return {};
  if (routes.length === 1 && routes[0]!.when === 'true')
    return routes[0]!.next === fallThrough ? {} : { next: routes[0]!.next };
  const last = routes.at(-1)!;
  const always = last.when === 'true';
  let id = `${scope.step}_next`;
  for (let n = 2; context.stepIds.has(id); n++) id = `${scope.step}_next_${n}`;
  context.stepIds.add(id);
  const choice: Json = {
    id,
    choose: (always ? routes.slice(0, -1) : routes).map((route) => ({ when: route.when, next: route.next })),
    default: always ? last.next : fallThrough,
  };
  return { choice };
}

/** Where an action goes: a step id, or `end`; null (reported) for another workflow. */
function actionTarget(action: Json, context: Context, path: DocPath): string | null {
  if (action['type'] === 'end') return 'end';
  if (action['type'] === 'goto' && typeof action['stepId'] === 'string') {
    const id = context.ids.get(action['stepId']);
    if (id) return id;
    context.conversion.note(
      'warning',
      context.document.where([...path, 'stepId']),
      `${action['stepId']}: no step of this workflow has that id; the action is left out`,
    );
    return null;
  }
  if (action['type'] === 'goto' && typeof action['workflowId'] === 'string') {
    context.conversion.note(
      'warning',
      context.document.where([...path, 'workflowId']),
      `goto ${action['workflowId']}: a composite goes to its own steps only (call the workflow from a step instead); the action is left out`,
    );
    return null;
  }
  context.conversion.note(
    'warning',
    context.document.where(path),
    `an action of type ${String(action['type'])} is not one toolgen reads here; left out`,
  );
  return null;
}

/**
 * `onFailure` (else the workflow's `failureActions`): `retry` → `action: retry` (`retryLimit` retries,
 * default 1, `retryAfter` seconds apart, a status criterion → `retry_on: [HTTP_<status>]`), `goto` →
 * `next`, `end` → stop.
 */
function failureActions(step: Json, workflow: Json, position: number, context: Context): Json | null {
  const own = step['onFailure'] !== undefined;
  const base: DocPath = own ? [...context.at, 'steps', position, 'onFailure'] : [...context.at, 'failureActions'];
  const listed = actions(own ? step['onFailure'] : workflow['failureActions'], 'failureActions', context, base);
  const result: Json = {};
  for (const { action, path } of listed) {
    const criteria = Array.isArray(action['criteria']) ? (action['criteria'] as unknown[]) : [];
    const statuses = criteria.map((raw) =>
      isPlainObject(raw) && typeof raw['condition'] === 'string' ? statusList(raw['condition']) : null,
    );
    if (action['type'] === 'retry' && result['action'] === undefined) {
      result['action'] = 'retry';
      result['max_retries'] = typeof action['retryLimit'] === 'number' ? action['retryLimit'] : 1;
      // Arazzo waits retryAfter seconds before each retry (toolgen's first wait, 1 s, when it says nothing).
      result['initial_delay_ms'] =
        typeof action['retryAfter'] === 'number' ? Math.round(action['retryAfter'] * 1000) : 1000;
      result['backoff_factor'] = 1;
      if (typeof action['stepId'] === 'string' && action['stepId'] !== String(step['stepId']))
        context.conversion.note(
          'warning',
          context.document.where([...path, 'stepId']),
          `${action['stepId']}: a retry runs its own step again; going elsewhere after it is a goto (left out)`,
        );
      if (criteria.length > 0) {
        if (statuses.every((list) => list !== null))
          result['retry_on'] = [...new Set(statuses.flat().map((status) => `HTTP_${status}`))];
        else
          context.conversion.note(
            'warning',
            context.document.where([...path, 'criteria']),
            'only criteria on $statusCode choose what is retried (retry_on: HTTP_<status>); retried on every failure the defaults retry',
          );
      }
      continue;
    }
    if (criteria.length > 0) {
      context.conversion.note(
        'warning',
        context.document.where([...path, 'criteria']),
        `a ${String(action['type'])} action with criteria: toolgen goes on after a failure whatever it was; the action is left out`,
      );
      continue;
    }
    if (action['type'] === 'end') break;
    const next = actionTarget(action, context, path);
    if (next === null) continue;
    if (result['action'] === 'retry') result['continue_on_max_retries'] = true;
    else result['action'] = 'continue';
    result['next'] = next;
    break;
  }
  return Object.keys(result).length > 0 ? result : null;
}

/** `$statusCode == 503 || $statusCode == 429` → ['503', '429']; null for any other condition. */
function statusList(condition: string): string[] | null {
  const terms = condition.split('||').map((term) => /^\s*\(?\s*\$statusCode\s*==\s*(\d{3})\s*\)?\s*$/.exec(term));
  return terms.every((term) => term !== null) ? terms.map((term) => term![1]!) : null;
}

/** The workflow's `outputs` as `returns`: each a field of the final state, set where the step's output is mapped. */
function workflowReturns(workflow: Json, context: Context): Json | null {
  if (!isPlainObject(workflow['outputs'])) return null;
  const properties: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(workflow['outputs'])) {
    const where = context.document.where([...context.at, 'outputs', name]);
    const expression = typeof value === 'string' ? readExpression(value) : null;
    const holds =
      expression?.kind === 'stepOutput' && expression.pointer.length === 0
        ? context.outputs.get(`${expression.step}\u0000${expression.name}`)
        : expression?.kind === 'inputs' && expression.pointer.length === 0
          ? expression.name
          : undefined;
    if (holds === name) properties[name] = {};
    else
      context.conversion.note(
        'warning',
        where,
        holds === undefined
          ? `${String(value)}: ${expression?.kind === 'unsupported' ? expression.why : 'a workflow output is a step output ($steps.<stepId>.outputs.<name>) or an input'}; left out`
          : `${String(value)}: returned as '${holds}', the state variable that holds it (${isIdentifier(name) ? `the name '${name}' was taken` : `a state variable's name is an identifier, and '${name}' is not one`})`,
      );
  }
  if (Object.keys(properties).length === 0) return null;
  return { type: 'object', properties, additionalProperties: true };
}
