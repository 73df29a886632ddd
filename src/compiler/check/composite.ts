/**
 * Stage 4: static analysis of one composite tool. Collects every problem; never stops at the first.
 */
import { BUILTINS, closestName, formatPath, parsePath, parseTemplate, type JsonSchema, type JsonValue, type Reference } from '../../runtime/index.js';
import { isPlainObject } from '../../runtime/json.js';
import { findDependencyCycle } from '../../runtime/compiled-plan.js';
import { literalErrors } from './literals.js';
import { diagnostic, type Diagnostic, type Location } from '../diagnostics/diagnostic.js';
import type { YamlPath } from '../load/source.js';
import { isCall, type CallStepDoc, type LoopStepDoc, type ParallelStepDoc } from '../model.js';
import { checkExpression, expressionReferences } from './expressions.js';
import type { Catalogue, CatalogueEntry } from '../resolve/catalogue.js';
import { mustPass, shapeSchema } from '../resolve/parameters.js';
import { canEnd, definitions, edgesOf, findCycle, reachable, type Definitions } from './flow.js';
import { jsonType, schemaAt, typesCompatible, typesOf } from './schema-path.js';
import { buildSteps, stepsPath, type StepNode } from './steps.js';
import { isLiteral, scanTemplates, type FoundReference } from './templates.js';

/** A state variable of a composite: a parameter, or an output mapped into state. */
export interface StateVariable {
  readonly name: string;
  readonly schema: JsonSchema;
  /** Defined whenever the chain ends normally. */
  readonly alwaysAtEnd: boolean;
}

export interface CompositeAnalysis {
  readonly nodes: readonly StepNode[];
  readonly state: readonly StateVariable[];
  /** Set for a composite in DAG mode: each top-level step's dependencies, declared or implied by references. */
  readonly dag: { readonly dependsOn: ReadonlyMap<string, readonly string[]>; readonly outputSteps: readonly string[] | null } | null;
}

const RESERVED = new Set<string>([...BUILTINS, 'state', 'steps']);

/** What the checks need to know about other tools. */
export interface CheckEnvironment {
  readonly catalogue: Catalogue;
  /** The output schema of a tool: declared `returns`, or a composite's state. */
  returnsOf(name: string): JsonSchema | null;
}

export function checkComposite(entry: CatalogueEntry, env: CheckEnvironment): { analysis: CompositeAnalysis; diagnostics: Diagnostic[] } {
  const { source, document } = entry;
  if (document.implementation.type !== 'composite') throw new Error('checkComposite called on a function tool');
  const steps = document.implementation.composite.steps;
  const diagnostics: Diagnostic[] = [];
  const report = (d: Diagnostic) => diagnostics.push(d);

  entry.parameters.forEach((parameter, index) => {
    if (RESERVED.has(parameter.name)) report(diagnostic('RESERVED_NAME', `'${parameter.name}' is reserved and cannot name a parameter`, source.locate(['parameters', index, 'name']), `reserved: ${[...RESERVED].join(', ')}`));
  });
  if (steps.length === 0) {
    report(diagnostic('EMPTY_COMPOSITE', 'a composite tool needs at least one step', source.locate(stepsPath())));
    return { analysis: { nodes: [], state: [], dag: null }, diagnostics };
  }

  const { nodes, diagnostics: stepProblems } = buildSteps(steps, source);
  diagnostics.push(...stepProblems);
  const everyNode = flatten(nodes);
  const outputSchema = outputSchemas(env);

  // Data flow: parameters the caller must pass (or that have defaults) are always there.
  const parameterNames = entry.parameters.map((p) => p.name);
  const given = entry.parameters.filter((p) => p.required === true || p.default !== undefined).map((p) => p.name);
  const initial: Definitions = { must: new Set(given), may: new Set(parameterNames) };
  const allNames = [...new Set([...parameterNames, ...everyNode.flatMap((node) => [...definedBy(node).filter((name) => !name.startsWith('steps.')), ...(node.body ? [loopOf(node).as] : [])])])];
  const stepIds = new Map(everyNode.map((node) => [node.id, node]));
  const variableSchema = variableSchemas(entry, everyNode, outputSchema);
  const context: SequenceContext = { entry, env, report, allNames, stepIds, variableSchema, outputSchema };
  const composite = document.implementation.composite;
  const isDag = composite.mode === 'dag' || steps.some((step) => step.depends_on !== undefined);
  const dag = isDag ? checkDag(nodes, initial, context, composite.output_steps) : null;
  const atEnd = dag ? dag.atEnd : checkSequence(nodes, initial, context).atEnd;
  const variables = stateVariables(entry, nodes, outputSchema, atEnd);

  const allowed = document.implementation.composite.allow_next_tools ?? [];
  allowed.forEach((name, index) => knownTool(name, ['implementation', 'composite', 'allow_next_tools', index], env, entry, report));
  return { analysis: { nodes, state: variables, dag: dag ? { dependsOn: dag.dependsOn, outputSteps: composite.output_steps ?? null } : null }, diagnostics };
}

type SequenceContext = ReferenceScopeBase;

/** The state variables and step outputs a step defines when it succeeds. */
function definedBy(node: StepNode): string[] {
  return [...Object.values(node.doc.on_success?.map_outputs ?? {}), ...Object.keys(node.doc.on_success?.transform ?? {}), `steps.${node.id}`];
}

function flatten(nodes: readonly StepNode[]): StepNode[] {
  return nodes.flatMap((node) => [node, ...flatten(node.body ?? []), ...(node.branches ?? []).flatMap((branch) => flatten(branch.nodes))]);
}

function loopOf(node: StepNode): LoopStepDoc['loop'] {
  return (node.doc as LoopStepDoc).loop;
}

/** The key a step is best pointed at by when it has no id: its tool, or its block. */
function headKey(node: StepNode): string {
  if (node.explicitId) return 'id';
  return isCall(node.doc) ? 'tool' : 'parallel' in node.doc ? 'parallel' : 'loop';
}

/**
 * Checks one sequence of steps (the composite's, a branch's, a loop body's) given what is defined
 * when it starts; recurses into blocks. Returns the sequence's data flow.
 */
function checkSequence(nodes: readonly StepNode[], initial: Definitions, ctx: SequenceContext): ReturnType<typeof definitions> {
  const { entry, report } = ctx;
  const { source } = entry;
  const edges = edgesOf(nodes);
  const live = reachable(nodes, edges);
  for (const node of nodes) {
    if (!live.has(node.index)) report(diagnostic('UNREACHABLE_STEP', `step '${node.id}' can never run: no step leads to it`, source.locate([...node.path, headKey(node)]), 'point a next at it, or remove it'));
  }
  reportEndlessLoops(nodes, edges, live, entry, report);
  const flow = definitions(nodes, edges, initial, definedBy);
  for (const node of nodes) checkNode(node, flow.atStep.get(node.index), initial, ctx);
  return flow;
}

/**
 * Checks a composite in DAG mode: dependencies (declared, and implied by `<< steps.x >>`) name steps
 * and form no cycle; a step reads only what the steps it depends on define; `next` has no place.
 */
function checkDag(nodes: readonly StepNode[], initial: Definitions, ctx: SequenceContext, outputSteps: readonly string[] | undefined): { atEnd: Definitions; dependsOn: Map<string, string[]> } {
  const { entry, report } = ctx;
  const { source } = entry;
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const dependsOn = new Map<string, string[]>();
  for (const node of nodes) {
    const declared = node.doc.depends_on ?? [];
    declared.forEach((dep, index) => {
      if (byId.has(dep)) return;
      const suggestion = closestName(dep, [...byId.keys()]);
      report(diagnostic('UNKNOWN_STEP_REFERENCE', `no step has id '${dep}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, source.locate([...node.path, 'depends_on', index])));
    });
    for (const key of ['on_success', 'on_failure'] as const) {
      if (node.doc[key]?.next !== undefined) {
        report(diagnostic('DAG_NEXT', 'next has no meaning in a DAG: a step runs when the steps it depends on have succeeded', source.locate([...node.path, key, 'next'], { key: true }), 'use depends_on'));
      }
    }
    const expressions = [node.doc.when, ...Object.values(node.doc.on_success?.transform ?? {})].filter((text): text is string => text !== undefined);
    const read = [...referencedSteps(node.doc), ...expressions.flatMap((text) => expressionReferences(text).filter((r) => r.root === 'steps').map((r) => r.name))];
    const implied = read.filter((id) => id !== node.id && byId.has(id));
    dependsOn.set(node.id, [...new Set([...declared.filter((dep) => byId.has(dep)), ...implied])]);
  }
  (outputSteps ?? []).forEach((id, index) => {
    if (!byId.has(id)) report(diagnostic('UNKNOWN_STEP_REFERENCE', `no step has id '${id}'`, source.locate(['implementation', 'composite', 'output_steps', index])));
  });
  const cycle = findDependencyCycle(dependsOn);
  if (cycle) {
    const first = byId.get(cycle[0]!)!;
    report(diagnostic('DEPENDENCY_CYCLE', `the steps depend on each other in a cycle: ${cycle.join(' → ')}`, source.locate([...first.path, first.doc.depends_on ? 'depends_on' : headKey(first)]), 'a step can only use what steps before it produced'));
  }
  // What a step may read: what its dependencies, and theirs, define when they succeed.
  const ancestors = (id: string, seen = new Set<string>()): Set<string> => {
    for (const dep of dependsOn.get(id) ?? []) {
      if (seen.has(dep)) continue;
      seen.add(dep);
      ancestors(dep, seen);
    }
    return seen;
  };
  for (const node of nodes) {
    const defined = new Set([...initial.must, ...[...ancestors(node.id)].flatMap((id) => definedBy(byId.get(id)!))]);
    checkNode(node, { must: defined, may: new Set([...initial.may, ...defined]) }, initial, ctx);
  }
  // A run that succeeds ran every step, except those a false `when` skipped, with their dependents.
  const conditional = (id: string, seen = new Set<string>()): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    return byId.get(id)!.doc.when !== undefined || (dependsOn.get(id) ?? []).some((dep) => conditional(dep, seen));
  };
  const always = nodes.filter((node) => !conditional(node.id)).flatMap(definedBy);
  const all = nodes.flatMap(definedBy);
  return { atEnd: { must: new Set([...initial.must, ...always]), may: new Set([...initial.may, ...all]) }, dependsOn };
}

/** The step ids a step's templates read (`<< steps.x… >>`), anywhere inside it. */
function referencedSteps(value: unknown): string[] {
  if (typeof value === 'string') {
    if (!value.includes('<<')) return [];
    const parsed = parseTemplate(value);
    if ('error' in parsed) return [];
    return parsed.parts.flatMap((part) => ('reference' in part && part.reference.root === 'steps' ? [part.reference.step] : []));
  }
  if (Array.isArray(value)) return value.flatMap(referencedSteps);
  if (isPlainObject(value)) return Object.values(value).flatMap(referencedSteps);
  return [];
}

/**
 * What an expression reads must exist: a state variable defined on some path to it, a step that
 * exists. (An expression may well read what is only sometimes there: it sees it as absent, not as an error.)
 */
function checkExpressionReferences(text: string, at: YamlPath, here: Definitions, ctx: SequenceContext): void {
  for (const reference of expressionReferences(text)) {
    const where = ctx.entry.source.locate(at, { span: { offset: reference.offset, length: reference.length } });
    if (reference.root === 'steps') {
      if (!ctx.stepIds.has(reference.name)) {
        const suggestion = closestName(reference.name, [...ctx.stepIds.keys()]);
        ctx.report(diagnostic('UNKNOWN_STEP_REFERENCE', `no step has id '${reference.name}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, where));
      }
      continue;
    }
    if (here.may.has(reference.name)) continue;
    const known = ctx.allNames.includes(reference.name);
    const suggestion = known ? null : closestName(reference.name, ctx.allNames);
    const message = known
      ? `state.${reference.name} is not defined on any path that reaches this step`
      : `state.${reference.name} is never defined${suggestion ? `; did you mean '${suggestion}'?` : ''}`;
    ctx.report(diagnostic('UNDEFINED_VARIABLE', message, where, 'state holds the parameters and what map_outputs and transform set'));
  }
}

/** The checks of one step, given what is defined when it starts (undefined when it never starts). */
function checkNode(node: StepNode, here: Definitions | undefined, initial: Definitions, ctx: SequenceContext): void {
  const { entry, report } = ctx;
  const { source } = entry;
  const { doc } = node;
  if (doc.when !== undefined) {
    checkExpression(doc.when, [...node.path, 'when'], source, report);
    if (here) checkExpressionReferences(doc.when, [...node.path, 'when'], here, ctx);
  }
  // A transform runs after the step's own outputs are mapped: it may read them.
  const afterStep = here ? { must: new Set([...here.must, ...definedBy(node)]), may: new Set([...here.may, ...definedBy(node)]) } : undefined;
  for (const [to, expression] of Object.entries(doc.on_success?.transform ?? {})) {
    const at: YamlPath = [...node.path, 'on_success', 'transform', to];
    if (RESERVED.has(to)) report(diagnostic('RESERVED_NAME', `'${to}' is reserved and cannot name a state variable`, source.locate(at, { key: true })));
    checkExpression(expression, at, source, report);
    if (afterStep) checkExpressionReferences(expression, at, afterStep, ctx);
  }
  if (isCall(doc)) {
    checkCallStep(node, doc, here, ctx);
    return;
  }
  if (doc.on_failure?.action === 'retry') {
    report(diagnostic('BLOCK_RETRY', `a ${'parallel' in doc ? 'parallel block' : 'loop'} cannot retry as a whole`, source.locate([...node.path, 'on_failure', 'action']), 'retry the steps inside it, or use stop or continue here'));
  }
  const start = here ?? initial;
  if (node.branches) {
    for (const branch of node.branches) checkSequence(branch.nodes, start, ctx);
  } else if (node.body) {
    const loop = loopOf(node);
    const overAt: YamlPath = [...node.path, 'loop', 'over'];
    const scan = scanTemplates(loop.over, overAt);
    for (const problem of scan.problems) report(diagnostic('TEMPLATE_SYNTAX', problem.message, source.locate(problem.path, { span: { offset: problem.offset, length: 2 } })));
    for (const found of scan.references) {
      if (here) checkReference(found, here, ctx);
      const listed = found.reference.root === 'state' ? schemaAt(ctx.variableSchema.get(found.reference.name) ?? null, found.reference.path) : { kind: 'unknown' as const };
      const types = listed.kind === 'found' ? typesOf(listed.schema) : null;
      if (types && !types.has('array')) {
        report(diagnostic('LOOP_OVER_NOT_LIST', `a loop goes over a list, and << ${found.reference.text} >> is ${[...types].join(' or ')}`, source.locate(overAt), 'point over at a list in state'));
      }
    }
    checkSequence(node.body, { must: new Set([...start.must, loop.as]), may: new Set([...start.may, loop.as]) }, ctx);
  }
  checkOutputs(node, [{ name: `the ${'parallel' in doc ? 'parallel block' : 'loop'} '${node.id}'`, schema: ctx.outputSchema(node) }], entry, report);
}

function checkCallStep(node: StepNode, doc: CallStepDoc, here: Definitions | undefined, ctx: SequenceContext): void {
  const { entry, env, report } = ctx;
  const { source } = entry;
  const callee = knownTool(doc.tool, [...node.path, 'tool'], env, entry, report);
  const inputs = doc.inputs ?? {};
  const scan = scanTemplates(inputs, [...node.path, 'inputs']);
  for (const problem of scan.problems) {
    report(diagnostic('TEMPLATE_SYNTAX', problem.message, source.locate(problem.path, { span: { offset: problem.offset, length: 2 } })));
  }
  for (const seed of scan.seedTemplates) {
    report(diagnostic('SEED_TEMPLATE', `'${seed.text}' is passed to the tool as literal text`, source.locate(seed.path, { span: { offset: seed.offset, length: seed.text.length } }), `toolgen templates are written ${seed.replacement}`));
  }
  for (const found of scan.references) {
    if (here) checkReference(found, here, ctx);
  }
  // A fallback takes the step's inputs and stands in for its output: it must fit both, like the tool.
  const fallbacks = (doc.fallbacks ?? []).map((name, index) => knownTool(name, [...node.path, 'fallbacks', index], env, entry, report));
  for (const tool of [callee, ...fallbacks]) {
    if (tool) checkInputs(node, inputs, tool, { variableSchema: ctx.variableSchema, entry, report, scanned: scan.references });
  }
  const sources = [callee, ...fallbacks].filter((tool): tool is CatalogueEntry => tool !== null).map((tool) => ({ name: `'${tool.name}'`, schema: env.returnsOf(tool.name) }));
  checkOutputs(node, sources, entry, report);
  checkRetrySettings(node, entry, report);
}

/** What each step returns, as far as the tools' signatures say; blocks shape their branches' and items' outputs. */
function outputSchemas(env: CheckEnvironment): (node: StepNode) => JsonSchema | null {
  const memo = new Map<StepNode, JsonSchema | null>();
  const last = (nodes: readonly StepNode[]) => (nodes.length > 0 ? of(nodes[nodes.length - 1]!) : null);
  function of(node: StepNode): JsonSchema | null {
    if (memo.has(node)) return memo.get(node)!;
    let schema: JsonSchema | null;
    if (isCall(node.doc)) schema = env.returnsOf(node.doc.tool);
    else if (node.branches) {
      const all = (node.doc as ParallelStepDoc).wait_for === undefined || (node.doc as ParallelStepDoc).wait_for === 'all';
      schema = {
        type: 'object',
        properties: Object.fromEntries(node.branches.map((branch) => [branch.id, last(branch.nodes) ?? {}])),
        required: all ? node.branches.map((branch) => branch.id) : [],
      };
    } else {
      schema = {
        type: 'object',
        properties: {
          // An item that failed (when the loop tolerates failures) leaves null in its place.
          results: { type: 'array', items: (node.doc as LoopStepDoc).loop.max_failures ? { anyOf: [last(node.body ?? []) ?? {}, { type: 'null' }] } : (last(node.body ?? []) ?? {}) },
          failures: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, step: { type: ['string', 'null'] }, kind: { type: 'string' }, message: { type: 'string' } } } },
        },
        required: ['results', 'failures'],
      };
    }
    memo.set(node, schema);
    return schema;
  }
  return of;
}

/** What is known of the type of every name a template may read: parameters, mapped outputs, loop items. */
function variableSchemas(entry: CatalogueEntry, nodes: readonly StepNode[], outputSchema: (node: StepNode) => JsonSchema | null): Map<string, JsonSchema> {
  const schemas = new Map<string, JsonSchema>();
  for (const parameter of entry.parameters) schemas.set(parameter.name, shapeSchema(parameter));
  const merge = (name: string, schema: JsonSchema) => {
    const previous = schemas.get(name);
    schemas.set(name, previous && JSON.stringify(previous) !== JSON.stringify(schema) ? {} : schema);
  };
  for (const node of nodes) {
    for (const [from, to] of Object.entries(node.doc.on_success?.map_outputs ?? {})) {
      const parsed = parsePath(from);
      const lookup = 'error' in parsed ? ({ kind: 'unknown' } as const) : schemaAt(outputSchema(node), parsed.segments);
      merge(to, lookup.kind === 'found' ? lookup.schema : {});
    }
    for (const to of Object.keys(node.doc.on_success?.transform ?? {})) merge(to, {});
  }
  for (const node of nodes) {
    if (!node.body) continue;
    const loop = loopOf(node);
    const over = parseTemplate(loop.over);
    const reference = !('error' in over) && over.whole ? (over.parts[0] as { reference: Reference }).reference : null;
    const list = reference?.root === 'state' ? schemaAt(schemas.get(reference.name) ?? null, reference.path) : null;
    const items = list?.kind === 'found' && isPlainObject(list.schema['items']) ? (list.schema['items'] as JsonSchema) : {};
    merge(loop.as, items);
  }
  return schemas;
}

function reportEndlessLoops(nodes: readonly StepNode[], edges: ReturnType<typeof edgesOf>, live: Set<number>, entry: CatalogueEntry, report: (d: Diagnostic) => void): void {
  const ending = canEnd(nodes, edges);
  const stuck = new Set([...live].filter((index) => !ending.has(index)));
  const reported = new Set<number>();
  for (const index of [...stuck].sort((a, b) => a - b)) {
    if (reported.has(index)) continue;
    // The steps that `index` can reach and that can reach `index` back form its loop.
    const loop = new Set([...stuck].filter((other) => reaches(index, other, edges) && reaches(other, index, edges)));
    if (loop.size === 0) continue;
    for (const member of loop) reported.add(member);
    const cycle = findCycle(loop, edges);
    if (!cycle) continue;
    const closing = nodes[cycle[cycle.length - 2]!]!;
    const viaSuccess = edges.some((edge) => edge.from === closing.index && edge.to === cycle[0] && edge.kind === 'success');
    const names = cycle.map((i) => nodes[i]!.id).join(' → ');
    report(
      diagnostic(
        'ENDLESS_LOOP',
        `the steps ${names} loop with no way out: no path from them reaches the end`,
        entry.source.locate([...closing.path, viaSuccess ? 'on_success' : 'on_failure', 'next']),
        'send one of these steps to a step outside the loop, or to end',
      ),
    );
  }
}

function reaches(from: number, to: number, edges: ReturnType<typeof edgesOf>): boolean {
  const seen = new Set<number>();
  const stack = [from];
  while (stack.length > 0) {
    const at = stack.pop()!;
    for (const edge of edges) {
      if (edge.from !== at || edge.to === null || seen.has(edge.to)) continue;
      if (edge.to === to) return true;
      seen.add(edge.to);
      stack.push(edge.to);
    }
  }
  return false;
}

/** The tool with that name; reports it (with a suggestion) when there is none. */
export function knownTool(name: string, at: YamlPath, env: CheckEnvironment, entry: CatalogueEntry, report: (d: Diagnostic) => void): CatalogueEntry | null {
  const tool = env.catalogue.get(name);
  if (tool || env.catalogue.isBroken(name)) return tool ?? null;
  const suggestion = closestName(name, env.catalogue.names());
  report(
    diagnostic(
      'UNKNOWN_TOOL',
      `no tool named '${name}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
      entry.source.locate(at),
      'tools are the YAML files under the config dir, by their name field',
    ),
  );
  return null;
}

const RETRY_SETTINGS = ['max_retries', 'initial_delay_ms', 'backoff_factor', 'max_delay_ms', 'jitter', 'continue_on_max_retries', 'retry_on', 'no_retry_on'] as const;

/** Retry settings on a step that does not retry are a mistake worth pointing at: they do nothing. */
function checkRetrySettings(node: StepNode, entry: CatalogueEntry, report: (d: Diagnostic) => void): void {
  const failure = node.doc.on_failure;
  if (!failure || failure.action === 'retry') return;
  for (const setting of RETRY_SETTINGS) {
    if (failure[setting] === undefined) continue;
    report(diagnostic('USELESS_RETRY_SETTING', `${setting} does nothing here: this step's on_failure action is ${failure.action ?? (failure.next ? 'continue' : 'stop')}`, entry.source.locate([...node.path, 'on_failure', setting], { key: true }), 'set action: retry, or remove it'));
  }
}

interface ReferenceScopeBase {
  readonly outputSchema: (node: StepNode) => JsonSchema | null;
  readonly allNames: readonly string[];
  readonly stepIds: ReadonlyMap<string, StepNode>;
  readonly variableSchema: ReadonlyMap<string, JsonSchema>;
  readonly env: CheckEnvironment;
  readonly entry: CatalogueEntry;
  readonly report: (d: Diagnostic) => void;
}

function checkReference(found: FoundReference, here: Definitions, scope: ReferenceScopeBase): void {
  const { reference } = found;
  // Locating is not free; only a reported problem needs it.
  const at = () => scope.entry.source.locate(found.path, { span: { offset: found.offset, length: found.length } });
  if (reference.root === 'builtin') return;
  if (reference.root === 'state') {
    const name = reference.name;
    if (!here.may.has(name)) {
      const known = scope.allNames.includes(name);
      const suggestion = known ? null : closestName(name, scope.allNames);
      const message = known
        ? `state.${name} is not defined on any path that reaches this step`
        : `state.${name} is never defined${suggestion ? `; did you mean '${suggestion}'?` : ''}`;
      scope.report(diagnostic('UNDEFINED_VARIABLE', message, at(), known ? 'it is set by map_outputs of a step that has not succeeded before this one' : 'state holds the parameters and what map_outputs sets'));
      return;
    }
    if (!here.must.has(name)) {
      const optional = scope.entry.parameters.some((p) => p.name === name);
      scope.report(
        diagnostic(
          'MAYBE_UNDEFINED_VARIABLE',
          optional ? `state.${name} is an optional parameter with no default: it is missing when the caller leaves it out` : `state.${name} is defined on some paths that reach this step, not all`,
          at(),
          optional ? 'give the parameter a default, or make it required' : 'this step fails with an unresolved reference on the other paths',
        ),
      );
    }
    checkFieldPath(reference.path, scope.variableSchema.get(name) ?? null, `state.${name}`, at, scope.report);
    return;
  }
  const step = scope.stepIds.get(reference.step);
  if (!step) {
    const suggestion = closestName(reference.step, [...scope.stepIds.keys()]);
    scope.report(diagnostic('UNKNOWN_STEP_REFERENCE', `no step has id '${reference.step}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, at()));
    return;
  }
  const key = `steps.${reference.step}`;
  if (!here.may.has(key)) {
    scope.report(diagnostic('UNDEFINED_VARIABLE', `step '${reference.step}' has not succeeded on any path that reaches this step`, at()));
    return;
  }
  if (!here.must.has(key)) scope.report(diagnostic('MAYBE_UNDEFINED_VARIABLE', `step '${reference.step}' has succeeded on some paths that reach this step, not all`, at()));
  const what = isCall(step.doc) ? `the output of '${step.doc.tool}'` : `the output of step '${step.id}'`;
  checkFieldPath(reference.path, scope.outputSchema(step), what, at, scope.report);
}

function checkFieldPath(path: readonly (string | number)[], schema: JsonSchema | null, what: string, at: () => Location, report: (d: Diagnostic) => void): void {
  const lookup = schemaAt(schema, path);
  if (lookup.kind !== 'missing') return;
  const field = String(path[lookup.at]);
  const suggestion = closestName(field, lookup.known);
  const parent = formatPath(path.slice(0, lookup.at));
  report(
    diagnostic(
      'UNKNOWN_OUTPUT_FIELD',
      `${what}${parent ? `.${parent}` : ''} has no field '${field}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
      at(),
      `declared fields: ${lookup.known.join(', ') || 'none'}`,
    ),
  );
}

interface InputScope {
  readonly variableSchema: ReadonlyMap<string, JsonSchema>;
  readonly entry: CatalogueEntry;
  readonly report: (d: Diagnostic) => void;
  readonly scanned: readonly FoundReference[];
}

function checkInputs(node: StepNode, inputs: { readonly [name: string]: JsonValue }, callee: CatalogueEntry, scope: InputScope): void {
  const { source } = scope.entry;
  const parameters = new Map(callee.parameters.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(inputs)) {
    const at: YamlPath = [...node.path, 'inputs', name];
    const parameter = parameters.get(name);
    if (!parameter) {
      const suggestion = closestName(name, [...parameters.keys()]);
      scope.report(
        diagnostic(
          'UNKNOWN_INPUT',
          `'${callee.name}' has no parameter '${name}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
          source.locate(at, { key: true }),
          parameters.size > 0 ? `its parameters: ${[...parameters.keys()].join(', ')}` : `'${callee.name}' takes no parameters`,
        ),
      );
      continue;
    }
    const wanted = shapeSchema(parameter);
    if (isLiteral(value)) {
      const problems = literalErrors(wanted, value);
      if (problems.length > 0) {
        scope.report(diagnostic('INPUT_TYPE', `${JSON.stringify(value)} is not a valid '${name}' for '${callee.name}': ${problems.map((p) => p.replace(/^input: /, '')).join('; ')}`, source.locate(at)));
      }
      continue;
    }
    const wantedTypes = typesOf(wanted);
    if (!wantedTypes) continue;
    if (typeof value !== 'string') {
      // A list or mapping with templates inside: its shape is known even if its contents are not.
      const given = jsonType(value);
      if (!typesCompatible(new Set([given]), wantedTypes)) {
        scope.report(diagnostic('INPUT_TYPE', `'${name}' of '${callee.name}' must be ${[...wantedTypes].join(' or ')}, not ${given === 'array' ? 'a list' : 'a mapping'}`, source.locate(at)));
      }
      continue;
    }
    const whole = scope.scanned.find((found) => found.whole && found.path.length === at.length && found.path.every((segment, i) => segment === at[i]));
    if (!whole) {
      if (!wantedTypes.has('string')) {
        scope.report(diagnostic('INPUT_TYPE', `'${name}' of '${callee.name}' must be ${[...wantedTypes].join(' or ')}, and text with templates inside is always a string`, source.locate(at), 'to pass a value with its type, make the value exactly one template: << state.x >>'));
      }
      continue;
    }
    const reference = whole.reference;
    if (reference.root !== 'state') continue;
    const given = schemaAt(scope.variableSchema.get(reference.name) ?? null, reference.path);
    const givenTypes = given.kind === 'found' ? typesOf(given.schema) : null;
    if (givenTypes && !typesCompatible(givenTypes, wantedTypes)) {
      scope.report(diagnostic('INPUT_TYPE', `'${name}' of '${callee.name}' must be ${[...wantedTypes].join(' or ')}, but << ${reference.text} >> is ${[...givenTypes].join(' or ')}`, source.locate(at)));
    }
  }
  const missing = callee.parameters.filter((p) => mustPass(p) && !(p.name in inputs));
  if (missing.length > 0) {
    const at: YamlPath = 'inputs' in node.doc && node.doc.inputs ? [...node.path, 'inputs'] : [...node.path, 'tool'];
    scope.report(diagnostic('MISSING_INPUT', `'${callee.name}' requires ${missing.map((p) => `'${p.name}'`).join(', ')}, and this step does not pass ${missing.length > 1 ? 'them' : 'it'}`, source.locate(at, { key: true })));
  }
}

/** `map_outputs` sources against what everything that may serve the step returns. */
function checkOutputs(node: StepNode, sources: readonly { readonly name: string; readonly schema: JsonSchema | null }[], entry: CatalogueEntry, report: (d: Diagnostic) => void): void {
  for (const [from, to] of Object.entries(node.doc.on_success?.map_outputs ?? {})) {
    const at: YamlPath = [...node.path, 'on_success', 'map_outputs', from];
    if (RESERVED.has(to)) report(diagnostic('RESERVED_NAME', `'${to}' is reserved and cannot name a state variable`, entry.source.locate(at)));
    const parsed = parsePath(from);
    if ('error' in parsed) {
      report(diagnostic('UNKNOWN_OUTPUT', `'${from}' is not a path: ${parsed.error.message}`, entry.source.locate(at, { key: true })));
      continue;
    }
    for (const source of sources) checkOutputSource(source.name, source.schema, parsed.segments, at, entry, report);
  }
}

function checkOutputSource(what: string, returns: JsonSchema | null, segments: readonly (string | number)[], at: YamlPath, entry: CatalogueEntry, report: (d: Diagnostic) => void): void {
  const lookup = schemaAt(returns, segments);
  if (lookup.kind !== 'missing') return;
  const field = String(segments[lookup.at]);
  const suggestion = closestName(field, lookup.known);
  report(
    diagnostic(
      'UNKNOWN_OUTPUT',
      `${what} returns no '${formatPath(segments.slice(0, lookup.at + 1))}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
      entry.source.locate(at, { key: true }),
      `its returns declare: ${lookup.known.join(', ') || 'no fields'}`,
    ),
  );
}

/** A composite's state: its parameters and every mapped output, typed where the tools say. */
export function stateVariables(entry: CatalogueEntry, nodes: readonly StepNode[], outputSchema: (node: StepNode) => JsonSchema | null, atEnd: Definitions): StateVariable[] {
  const variables = new Map<string, StateVariable>();
  for (const parameter of entry.parameters) {
    variables.set(parameter.name, { name: parameter.name, schema: shapeSchema(parameter), alwaysAtEnd: atEnd.must.has(parameter.name) });
  }
  for (const node of nodes) {
    const returns = outputSchema(node);
    for (const to of Object.keys(node.doc.on_success?.transform ?? {})) {
      if (!variables.has(to)) variables.set(to, { name: to, schema: {}, alwaysAtEnd: atEnd.must.has(to) });
    }
    for (const [from, to] of Object.entries(node.doc.on_success?.map_outputs ?? {})) {
      const parsed = parsePath(from);
      const lookup = 'error' in parsed ? ({ kind: 'unknown' } as const) : schemaAt(returns, parsed.segments);
      const schema = lookup.kind === 'found' ? lookup.schema : {};
      const previous = variables.get(to);
      // The same name set from outputs of different shapes: all that is known is that it is some value.
      const merged = previous && JSON.stringify(previous.schema) !== JSON.stringify(schema) ? {} : schema;
      variables.set(to, { name: to, schema: merged, alwaysAtEnd: atEnd.must.has(to) });
    }
  }
  return [...variables.values()];
}

/** The object schema of a composite's final state, used as its `returns`. */
export function stateSchema(variables: readonly StateVariable[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const variable of variables) properties[variable.name] = variable.schema;
  return { type: 'object', properties, required: variables.filter((v) => v.alwaysAtEnd).map((v) => v.name) };
}
