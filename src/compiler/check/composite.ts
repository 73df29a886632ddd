/**
 * Stage 4: static analysis of one composite tool. Walks its step graph (a sequence or a DAG, blocks
 * recursively): ids and targets, reachability, endless loops, what is defined where (`flow.ts`), what
 * templates read (`references.ts`), inputs and outputs against signatures (`signatures.ts`). Collects
 * every problem; never stops at the first.
 */
import { PROTOTYPE_NAMES } from '../../language/json.js';
import { RESERVED_NAMES } from '../../language/template.js';
import { findDependencyCycle } from '../../language/graph.js';
import { closestName } from '../../language/suggest.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { alternatives, arrows, plainList } from '../diagnostics/format.js';
import type { YamlPath } from '../load/source.js';
import { validatorFor } from '../../language/validation.js';
import { isCall, isChoice, isWait, type CallStepDoc, type ChoiceStepDoc, type WaitStepDoc } from '../model.js';
import { checkExpression, expressionReferences } from './expressions.js';
import type { CatalogueEntry, ToolSignature } from '../resolve/catalogue.js';
import { NameSet, NameTable } from './name-set.js';
import {
  canEnd,
  definitions,
  dependencyDefinitions,
  edgesOf,
  findCycle,
  loopsAmong,
  reachable,
  type Definitions,
} from './flow.js';
import { schemaAt, typesOf } from './schema-path.js';
import { buildSteps, stepsPath, type StepNode } from './steps.js';
import { scanTemplates } from './templates.js';
import type { CheckEnvironment, ReferenceScope } from './environment.js';
import { checkExpressionReferences, checkReference, outputShapeUnknown, referencedSteps } from './references.js';
import { checkInputs, checkOutputs, checkRetrySettings, knownTool } from './signatures.js';
import {
  loopOf,
  outputSchemas,
  stateVariables,
  variableSchemas,
  waitPayloadSchema,
  type StateVariable,
} from './state-types.js';

export type { CheckEnvironment } from './environment.js';
export type { StateVariable } from './state-types.js';
export { knownTool } from './signatures.js';

export interface CompositeAnalysis {
  readonly nodes: readonly StepNode[];
  readonly state: readonly StateVariable[];
  /** Set for a composite in DAG mode: each top-level step's dependencies, declared or implied by references. */
  readonly dag: {
    readonly dependsOn: ReadonlyMap<string, readonly string[]>;
    readonly outputSteps: readonly string[] | null;
  } | null;
}

/** Told what is defined when each step starts (undefined when no run reaches it): for editors (`scopes.ts`). */
export type ScopeObserver = (node: StepNode, here: Definitions | undefined) => void;

export function checkComposite(
  entry: CatalogueEntry,
  env: CheckEnvironment,
  observe?: ScopeObserver,
): { analysis: CompositeAnalysis; diagnostics: Diagnostic[] } {
  const { source, document } = entry;
  if (document.implementation.type !== 'composite') throw new Error('checkComposite called on a function tool');
  const steps = document.implementation.composite.steps;
  const diagnostics: Diagnostic[] = [];
  const report = (d: Diagnostic) => diagnostics.push(d);

  entry.parameters.forEach((parameter, index) => {
    if (RESERVED_NAMES.has(parameter.name))
      report(
        diagnostic(
          'RESERVED_PARAMETER_NAME',
          { name: parameter.name, reserved: plainList([...RESERVED_NAMES]) },
          source.locate(['parameters', index, 'name']),
        ),
      );
  });
  if (steps.length === 0) {
    report(diagnostic('EMPTY_COMPOSITE', {}, source.locate(stepsPath())));
    return { analysis: { nodes: [], state: [], dag: null }, diagnostics };
  }

  const { nodes, diagnostics: stepProblems } = buildSteps(steps, source);
  diagnostics.push(...stepProblems);
  const everyNode = everyStepNode(nodes);
  const outputSchema = outputSchemas(env);

  // Data flow: parameters the caller must pass (or that have defaults) are always there.
  const parameterNames = entry.parameters.map((p) => p.name);
  const given = entry.parameters.filter((p) => p.required === true || p.default !== undefined).map((p) => p.name);
  const names = new NameTable();
  const must = NameSet.of(names, given);
  const initial: Definitions = { must, may: must.with(parameterNames) };
  const allNames = [
    ...new Set([
      ...parameterNames,
      ...everyNode.flatMap((node) => [
        ...definedBy(node).filter((name) => !name.startsWith('steps.')),
        ...(node.body ? [loopOf(node).as] : []),
      ]),
    ]),
  ];
  const stepIds = new Map(everyNode.map((node) => [node.id, node]));
  const variableSchema = variableSchemas(entry, everyNode, outputSchema);
  const context: SequenceContext = {
    entry,
    env,
    report,
    allNames,
    stepIds,
    variableSchema,
    outputSchema,
    ...(observe ? { observe } : {}),
  };
  const composite = document.implementation.composite;
  const isDag = composite.mode === 'dag' || steps.some((step) => step.depends_on !== undefined);
  // A run suspends as a whole: a wait with other steps in flight (branches, items, DAG steps) could not.
  const topLevel = new Set(nodes);
  const nested = everyNode.filter((node) => !topLevel.has(node));
  for (const node of [...nested, ...(isDag ? nodes : [])]) {
    if (isWait(node.doc))
      report(
        diagnostic(
          'WAIT_PLACEMENT',
          { where: topLevel.has(node) ? 'in DAG mode' : 'inside a parallel block or loop' },
          source.locate([...node.path, 'wait'], { key: true }),
        ),
      );
  }
  const dag = isDag ? checkDag(nodes, initial, context, composite.output_steps) : null;
  const atEnd = dag ? dag.atEnd : checkSequence(nodes, initial, context).atEnd;
  const variables = stateVariables(entry, nodes, outputSchema, atEnd);

  const allowed = document.implementation.composite.allow_next_tools ?? [];
  allowed.forEach((name, index) =>
    knownTool(name, ['implementation', 'composite', 'allow_next_tools', index], env, entry, report),
  );
  return {
    analysis: {
      nodes,
      state: variables,
      dag: dag ? { dependsOn: dag.dependsOn, outputSteps: composite.output_steps ?? null } : null,
    },
    diagnostics,
  };
}

type SequenceContext = ReferenceScope & { readonly observe?: ScopeObserver };

/** The state variables and step outputs a step defines when it succeeds. */
function definedBy(node: StepNode): string[] {
  return [
    ...Object.values(node.doc.on_success?.map_outputs ?? {}),
    ...Object.keys(node.doc.on_success?.transform ?? {}),
    `steps.${node.id}`,
  ];
}

/** Every step node, nested ones after their block, in document order. */
export function everyStepNode(nodes: readonly StepNode[]): StepNode[] {
  return nodes.flatMap((node) => [
    node,
    ...everyStepNode(node.body ?? []),
    ...(node.branches ?? []).flatMap((branch) => everyStepNode(branch.nodes)),
  ]);
}

/** The key a step is best pointed at by when it has no id: its tool, or its block. */
function headKey(node: StepNode): string {
  if (node.explicitId) return 'id';
  return isCall(node.doc)
    ? 'tool'
    : isWait(node.doc)
      ? 'wait'
      : 'parallel' in node.doc
        ? 'parallel'
        : isChoice(node.doc)
          ? 'choose'
          : 'loop';
}

/**
 * Checks one sequence of steps (the composite's, a branch's, a loop body's) given what is defined
 * when it starts; recurses into blocks. Returns the sequence's data flow.
 */
function checkSequence(
  nodes: readonly StepNode[],
  initial: Definitions,
  ctx: SequenceContext,
): ReturnType<typeof definitions> {
  const { entry, report } = ctx;
  const { source } = entry;
  const edges = edgesOf(nodes);
  const live = reachable(nodes, edges);
  // One diagnostic per root cause: with a target already reported and guessed, an unreachable step or
  // a loop is more likely the guess's doing than the author's.
  if (!nodes.some((node) => node.guessed)) {
    for (const node of nodes) {
      if (!live.has(node.index))
        report(diagnostic('UNREACHABLE_STEP', { step: node.id }, source.locate([...node.path, headKey(node)])));
    }
    reportEndlessLoops(nodes, edges, live, entry, report);
  }
  const flow = definitions(nodes, edges, initial, definedBy);
  for (const node of nodes) checkNode(node, flow.atStep.get(node.index), initial, ctx);
  return flow;
}

/**
 * Checks a composite in DAG mode: dependencies (declared, and implied by `<< steps.x >>`) name steps
 * and form no cycle; a step reads only what the steps it depends on define; `next` has no place.
 */
function checkDag(
  nodes: readonly StepNode[],
  initial: Definitions,
  ctx: SequenceContext,
  outputSteps: readonly string[] | undefined,
): { atEnd: Definitions; dependsOn: Map<string, string[]> } {
  const { entry, report } = ctx;
  const { source } = entry;
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const dependsOn = new Map<string, string[]>();
  for (const node of nodes) {
    const declared = node.doc.depends_on ?? [];
    declared.forEach((dep, index) => {
      if (byId.has(dep)) return;
      report(
        diagnostic('UNKNOWN_STEP_REFERENCE', { step: dep }, source.locate([...node.path, 'depends_on', index]), {
          suggestion: closestName(dep, [...byId.keys()]),
        }),
      );
    });
    if (isChoice(node.doc))
      report(diagnostic('CHOICE_IN_DAG', {}, source.locate([...node.path, 'choose'], { key: true })));
    for (const key of ['on_success', 'on_failure'] as const) {
      if (node.doc[key]?.next !== undefined) {
        report(diagnostic('DAG_NEXT', {}, source.locate([...node.path, key, 'next'], { key: true })));
      }
    }
    const expressions = [
      node.doc.when,
      ...Object.values(node.doc.on_success?.transform ?? {}),
      ...(isCall(node.doc) ? successConditions(node.doc).map((condition) => condition.text) : []),
    ].filter((text): text is string => text !== undefined);
    const read = [
      ...referencedSteps(node.doc),
      ...expressions.flatMap((text) =>
        expressionReferences(text)
          .filter((r) => r.root === 'steps' || r.root === 'responses')
          .map((r) => r.name),
      ),
    ];
    const implied = read.filter((id) => id !== node.id && byId.has(id));
    dependsOn.set(node.id, [...new Set([...declared.filter((dep) => byId.has(dep)), ...implied])]);
  }
  (outputSteps ?? []).forEach((id, index) => {
    if (!byId.has(id))
      report(
        diagnostic(
          'UNKNOWN_STEP_REFERENCE',
          { step: id },
          source.locate(['implementation', 'composite', 'output_steps', index]),
          { suggestion: closestName(id, [...byId.keys()]) },
        ),
      );
  });
  const cycle = findDependencyCycle(dependsOn);
  if (cycle) {
    const first = byId.get(cycle[0]!)!;
    report(
      diagnostic(
        'DEPENDENCY_CYCLE',
        { cycle: arrows(cycle) },
        source.locate([...first.path, first.doc.depends_on ? 'depends_on' : headKey(first)]),
      ),
    );
  }
  // What a step may read: what its dependencies, and theirs, define when they succeed. A run that
  // succeeds ran every step, except those a false `when` skipped, with their dependents.
  const flow =
    dependencyDefinitions(nodes, dependsOn, initial.must, definedBy) ??
    cyclicDefinitions(nodes, dependsOn, initial.must);
  for (const node of nodes) {
    const defined = flow.before.get(node.id)!;
    checkNode(node, { must: defined, may: initial.may.union(defined) }, initial, ctx);
  }
  const always = nodes.filter((node) => !flow.conditional.get(node.id)).flatMap(definedBy);
  const all = nodes.flatMap(definedBy);
  return { atEnd: { must: initial.must.with(always), may: initial.may.with(all) }, dependsOn };
}

/**
 * `dependencyDefinitions` for dependencies that form a cycle (reported): each step's ancestors walked
 * afresh, a step on a cycle its own ancestor. Quadratic, and only for a graph that is already an error.
 */
function cyclicDefinitions(
  nodes: readonly StepNode[],
  dependsOn: ReadonlyMap<string, readonly string[]>,
  initial: NameSet,
): { before: Map<string, NameSet>; conditional: Map<string, boolean> } {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const ancestors = (id: string, seen = new Set<string>()): Set<string> => {
    for (const dep of dependsOn.get(id) ?? []) {
      if (seen.has(dep)) continue;
      seen.add(dep);
      ancestors(dep, seen);
    }
    return seen;
  };
  const conditional = (id: string, seen = new Set<string>()): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    return byId.get(id)!.doc.when !== undefined || (dependsOn.get(id) ?? []).some((dep) => conditional(dep, seen));
  };
  const ids = [...byId.keys()];
  return {
    before: new Map(ids.map((id) => [id, initial.with([...ancestors(id)].flatMap((a) => definedBy(byId.get(a)!)))])),
    conditional: new Map(ids.map((id) => [id, conditional(id)])),
  };
}

/** The checks of one step, given what is defined when it starts (undefined when it never starts). */
function checkNode(node: StepNode, here: Definitions | undefined, initial: Definitions, ctx: SequenceContext): void {
  const { entry, report } = ctx;
  const { source } = entry;
  const { doc } = node;
  ctx.observe?.(node, here);
  if (doc.when !== undefined) {
    checkExpression(doc.when, [...node.path, 'when'], source, report);
    if (here) checkExpressionReferences(doc.when, [...node.path, 'when'], here, ctx);
  }
  // A transform runs after the step's own outputs are mapped: it may read them.
  const afterStep = here ? { must: here.must.with(definedBy(node)), may: here.may.with(definedBy(node)) } : undefined;
  for (const [to, expression] of Object.entries(doc.on_success?.transform ?? {})) {
    const at: YamlPath = [...node.path, 'on_success', 'transform', to];
    if (RESERVED_NAMES.has(to)) report(diagnostic('RESERVED_NAME', { name: to }, source.locate(at, { key: true })));
    if (PROTOTYPE_NAMES.has(to))
      report(diagnostic('PROTOTYPE_NAME', { name: to, what: 'a state variable' }, source.locate(at, { key: true })));
    checkExpression(expression, at, source, report);
    if (afterStep) checkExpressionReferences(expression, at, afterStep, ctx);
  }
  if (isCall(doc)) {
    checkCallStep(node, doc, here, ctx);
    checkSuccessWhen(node, doc, here, ctx);
    return;
  }
  if (isChoice(doc)) {
    checkChoice(node, doc, here, ctx);
    return;
  }
  if (isWait(doc)) {
    checkWaitStep(node, doc, ctx);
    return;
  }
  const block = 'parallel' in doc ? 'parallel block' : 'loop';
  if (doc.on_failure?.action === 'retry')
    report(diagnostic('BLOCK_RETRY', { block }, source.locate([...node.path, 'on_failure', 'action'])));
  const start = here ?? initial;
  if (node.branches) {
    for (const branch of node.branches) checkSequence(branch.nodes, start, ctx);
  } else if (node.body) {
    const loop = loopOf(node);
    if (PROTOTYPE_NAMES.has(loop.as))
      report(
        diagnostic(
          'PROTOTYPE_NAME',
          { name: loop.as, what: 'a loop variable' },
          source.locate([...node.path, 'loop', 'as']),
        ),
      );
    const overAt: YamlPath = [...node.path, 'loop', 'over'];
    const scan = scanTemplates(loop.over, overAt);
    for (const problem of scan.problems)
      report(
        diagnostic(
          'TEMPLATE_SYNTAX',
          { problem: problem.message },
          source.locate(problem.path, { span: { offset: problem.offset, length: 2 } }),
        ),
      );
    for (const found of scan.references) {
      if (here) checkReference(found, here, ctx);
      const listed =
        found.reference.root === 'state'
          ? schemaAt(ctx.variableSchema.get(found.reference.name) ?? null, found.reference.path)
          : { kind: 'unknown' as const };
      const types = listed.kind === 'found' ? typesOf(listed.schema) : null;
      if (types && !types.has('array')) {
        report(
          diagnostic(
            'LOOP_OVER_NOT_LIST',
            { reference: found.reference.text, types: alternatives(types) },
            source.locate(overAt),
          ),
        );
      }
    }
    checkSequence(node.body, { must: start.must.with([loop.as]), may: start.may.with([loop.as]) }, ctx);
  }
  checkOutputs(node, [{ owner: { block, step: node.id }, schema: ctx.outputSchema(node) }], entry, report);
}

/**
 * Each `success_when` condition parses and reads what is defined where the step runs, and the step's
 * own output (`steps.<id>`) and response: it is judged before the outputs are mapped.
 */
function checkSuccessWhen(node: StepNode, doc: CallStepDoc, here: Definitions | undefined, ctx: SequenceContext): void {
  if (doc.success_when === undefined) return;
  const own = [`steps.${node.id}`];
  const judged = here ? { must: here.must.with(own), may: here.may.with(own) } : undefined;
  successConditions(doc).forEach(({ text, at }) => {
    const path: YamlPath = [...node.path, ...at];
    checkExpression(text, path, ctx.entry.source, ctx.report);
    if (judged) checkExpressionReferences(text, path, judged, ctx);
  });
}

/** A step's `success_when`, one condition or a list, each with where it is under the step. */
export function successConditions(doc: CallStepDoc): { text: string; at: YamlPath }[] {
  const conditions = doc.success_when;
  if (conditions === undefined) return [];
  if (typeof conditions === 'string') return [{ text: conditions, at: ['success_when'] }];
  return conditions.map((text, index) => ({ text, at: ['success_when', index] }));
}

/** Each condition of a choice parses and reads what is defined where the choice runs. */
function checkChoice(node: StepNode, doc: ChoiceStepDoc, here: Definitions | undefined, ctx: SequenceContext): void {
  doc.choose.forEach((choice, index) => {
    const at: YamlPath = [...node.path, 'choose', index, 'when'];
    checkExpression(choice.when, at, ctx.entry.source, ctx.report);
    if (here) checkExpressionReferences(choice.when, at, here, ctx);
  });
}

function checkCallStep(node: StepNode, doc: CallStepDoc, here: Definitions | undefined, ctx: SequenceContext): void {
  const { entry, env, report } = ctx;
  const { source } = entry;
  const callee = knownTool(doc.tool, [...node.path, 'tool'], env, entry, report);
  const inputs = doc.inputs ?? {};
  const scan = scanTemplates(inputs, [...node.path, 'inputs']);
  for (const problem of scan.problems) {
    report(
      diagnostic(
        'TEMPLATE_SYNTAX',
        { problem: problem.message },
        source.locate(problem.path, { span: { offset: problem.offset, length: 2 } }),
      ),
    );
  }
  for (const seed of scan.seedTemplates) {
    report(
      diagnostic(
        'SEED_TEMPLATE',
        { text: seed.text, replacement: seed.replacement },
        source.locate(seed.path, { span: { offset: seed.offset, length: seed.text.length } }),
      ),
    );
  }
  for (const found of scan.references) {
    if (here) checkReference(found, here, ctx);
  }
  // A fallback takes the step's inputs and stands in for its output: it must fit both, like the tool.
  const fallbacks = (doc.fallbacks ?? []).map((name, index) =>
    knownTool(name, [...node.path, 'fallbacks', index], env, entry, report),
  );
  for (const tool of [callee, ...fallbacks]) {
    if (tool)
      checkInputs(node, inputs, tool, { variableSchema: ctx.variableSchema, entry, report, scanned: scan.references });
  }
  const sources = [callee, ...fallbacks]
    .filter((tool): tool is ToolSignature => tool !== null)
    .map((tool) => ({
      owner: { tool: tool.name },
      schema: env.returnsOf(tool.name),
      ...(outputShapeUnknown(tool.name, env)
        ? { shapeUnknown: env.catalogue.remote(tool.name)?.via === 'api' ? ('api' as const) : ('mcp' as const) }
        : {}),
    }));
  checkOutputs(node, sources, entry, report);
  checkRetrySettings(node, entry, report);
}

/** A wait step: a payload schema ajv accepts, outputs mapped from fields it declares, and no retry. */
function checkWaitStep(node: StepNode, doc: WaitStepDoc, ctx: SequenceContext): void {
  const { entry, report } = ctx;
  const { source } = entry;
  if (doc.on_failure?.action === 'retry')
    report(diagnostic('WAIT_RETRY', {}, source.locate([...node.path, 'on_failure', 'action'])));
  else checkRetrySettings(node, entry, report);
  const schema = waitPayloadSchema(doc);
  try {
    validatorFor(schema);
  } catch (error) {
    report(
      diagnostic(
        'WAIT_PAYLOAD_SCHEMA',
        { signal: doc.wait.signal, reason: error instanceof Error ? error.message : String(error) },
        source.locate([...node.path, 'wait', 'payload']),
      ),
    );
    return;
  }
  checkOutputs(node, [{ owner: { block: 'wait step', step: node.id }, schema }], entry, report);
}

function reportEndlessLoops(
  nodes: readonly StepNode[],
  edges: ReturnType<typeof edgesOf>,
  live: Set<number>,
  entry: CatalogueEntry,
  report: (d: Diagnostic) => void,
): void {
  const ending = canEnd(nodes, edges);
  const stuck = new Set([...live].filter((index) => !ending.has(index)));
  // Each loop is a strongly connected component of the steps that cannot end: found in linear time.
  for (const loop of loopsAmong(stuck, edges)) {
    const cycle = findCycle(loop, edges);
    if (!cycle) continue;
    const closing = nodes[cycle[cycle.length - 2]!]!;
    report(
      diagnostic(
        'ENDLESS_LOOP',
        { cycle: cappedCycle(cycle.map((i) => nodes[i]!.id)) },
        entry.source.locate(closingPath(closing, edges, cycle[0]!)),
      ),
    );
  }
}

/** A loop's steps as `a → b → a`; a long one shows its first steps, how many more, and where it closes. */
function cappedCycle(ids: readonly string[], shown = 8): string {
  if (ids.length <= shown + 2) return arrows(ids);
  return `${arrows(ids.slice(0, shown))} → … (and ${ids.length - 1 - shown} more) → ${ids[ids.length - 1]}`;
}

/** The YAML of the transition that closes a loop: a choice's `next` or `default`, or an `on_success`/`on_failure` next. */
function closingPath(closing: StepNode, edges: ReturnType<typeof edgesOf>, to: number): YamlPath {
  const edge =
    edges.find(
      (candidate) => candidate.from === closing.index && candidate.to === to && candidate.kind === 'success',
    ) ?? null;
  if (isChoice(closing.doc))
    return edge?.choice === undefined ? [...closing.path, 'default'] : [...closing.path, 'choose', edge.choice, 'next'];
  return [...closing.path, edge ? 'on_success' : 'on_failure', 'next'];
}
