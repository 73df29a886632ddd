/**
 * What is known of the types of a composite's values: each step's output (blocks shape their
 * branches' and items' outputs), every name a template may read, and the state a run ends with.
 */
import { choiceOutputSchema, loopOutputSchema, parallelOutputSchema } from '../../language/blocks.js';
import { DEFAULTS } from '../../language/plan.js';
import { type JsonSchema, isPlainObject } from '../../language/json.js';
import { parsePath } from '../../language/path.js';
import { parseTemplate, type Reference } from '../../language/template.js';
import { isCall, isChoice, isWait, type LoopStepDoc, type ParallelStepDoc, type WaitStepDoc } from '../model.js';
import type { CatalogueEntry } from '../resolve/catalogue.js';
import { shapeSchema } from '../resolve/parameters.js';
import type { CheckEnvironment } from './environment.js';
import type { Definitions } from './flow.js';
import { schemaAt } from './schema-path.js';
import { transformSchema } from './transform-types.js';
import type { StepNode } from './steps.js';

/** A state variable of a composite: a parameter, or an output mapped into state. */
export interface StateVariable {
  readonly name: string;
  readonly schema: JsonSchema;
  /** Defined whenever the chain ends normally. */
  readonly alwaysAtEnd: boolean;
}

/** What each step returns, as far as the tools' signatures say; blocks shape their branches' and items' outputs. */
export function outputSchemas(env: CheckEnvironment): (node: StepNode) => JsonSchema | null {
  const memo = new Map<StepNode, JsonSchema | null>();
  const last = (nodes: readonly StepNode[]) => (nodes.length > 0 ? of(nodes[nodes.length - 1]!) : null);
  function of(node: StepNode): JsonSchema | null {
    if (memo.has(node)) return memo.get(node)!;
    let schema: JsonSchema | null;
    if (isCall(node.doc)) schema = env.returnsOf(node.doc.tool);
    else if (isChoice(node.doc)) schema = choiceOutputSchema();
    else if (isWait(node.doc)) schema = waitPayloadSchema(node.doc);
    else if (node.branches) {
      const waitFor = (node.doc as ParallelStepDoc).wait_for ?? DEFAULTS.waitFor;
      schema = parallelOutputSchema(
        node.branches.map((branch) => ({ id: branch.id, output: last(branch.nodes) ?? {} })),
        waitFor === 'all',
      );
    } else {
      // An item that failed (when the loop tolerates failures) leaves null in its place.
      const maxFailures = (node.doc as LoopStepDoc).loop.max_failures ?? DEFAULTS.loopMaxFailures;
      schema = loopOutputSchema(last(node.body ?? []) ?? {}, maxFailures > 0);
    }
    memo.set(node, schema);
    return schema;
  }
  return of;
}

/**
 * The schema of the parameters and of every name the given steps assign (`map_outputs`, `transform`:
 * `transform-types.ts`), in that order. A name assigned values of different shapes is only known to be some value.
 */
function assignedSchemas(
  entry: CatalogueEntry,
  nodes: readonly StepNode[],
  outputSchema: (node: StepNode) => JsonSchema | null,
): Map<string, JsonSchema> {
  const schemas = new Map<string, JsonSchema>();
  for (const parameter of entry.parameters) schemas.set(parameter.name, shapeSchema(parameter));
  for (const node of nodes) {
    for (const [from, to] of Object.entries(node.doc.on_success?.map_outputs ?? {})) {
      const parsed = parsePath(from);
      const lookup = 'error' in parsed ? ({ kind: 'unknown' } as const) : schemaAt(outputSchema(node), parsed.segments);
      merge(schemas, to, lookup.kind === 'found' ? lookup.schema : {});
    }
    for (const [to, expression] of Object.entries(node.doc.on_success?.transform ?? {}))
      merge(schemas, to, transformSchema(expression));
  }
  return schemas;
}

function merge(schemas: Map<string, JsonSchema>, name: string, schema: JsonSchema): void {
  const previous = schemas.get(name);
  schemas.set(name, previous && JSON.stringify(previous) !== JSON.stringify(schema) ? {} : schema);
}

/** What is known of the type of every name a template may read: parameters, mapped outputs, loop items. */
export function variableSchemas(
  entry: CatalogueEntry,
  nodes: readonly StepNode[],
  outputSchema: (node: StepNode) => JsonSchema | null,
): Map<string, JsonSchema> {
  const schemas = assignedSchemas(entry, nodes, outputSchema);
  for (const node of nodes) {
    if (!node.body) continue;
    const loop = loopOf(node);
    const over = parseTemplate(loop.over);
    const reference = !('error' in over) && over.whole ? (over.parts[0] as { reference: Reference }).reference : null;
    const list = reference?.root === 'state' ? schemaAt(schemas.get(reference.name) ?? null, reference.path) : null;
    merge(
      schemas,
      loop.as,
      list?.kind === 'found' && isPlainObject(list.schema['items']) ? (list.schema['items'] as JsonSchema) : {},
    );
  }
  return schemas;
}

/** A composite's state: its parameters and what its top-level steps assign, typed where the tools say. */
export function stateVariables(
  entry: CatalogueEntry,
  nodes: readonly StepNode[],
  outputSchema: (node: StepNode) => JsonSchema | null,
  atEnd: Definitions,
): StateVariable[] {
  const mayBeAbsent = transformedOnly(entry, nodes);
  return [...assignedSchemas(entry, nodes, outputSchema)].map(([name, schema]) => ({
    name,
    schema,
    alwaysAtEnd: atEnd.must.has(name) && !mayBeAbsent.has(name),
  }));
}

/**
 * Names only a `transform` assigns: a JSONata expression may yield nothing (`$sum` of no items is
 * a number, but `items[price > 9]` of none is nothing), and the name is then absent from the state.
 */
function transformedOnly(entry: CatalogueEntry, nodes: readonly StepNode[]): Set<string> {
  const transformed = new Set<string>();
  const mapped = new Set(entry.parameters.map((parameter) => parameter.name));
  for (const node of nodes) {
    for (const to of Object.values(node.doc.on_success?.map_outputs ?? {})) mapped.add(to);
    for (const to of Object.keys(node.doc.on_success?.transform ?? {})) transformed.add(to);
  }
  return new Set([...transformed].filter((name) => !mapped.has(name)));
}

/** The object schema of a composite's final state, used as its `returns`. */
export function stateSchema(variables: readonly StateVariable[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const variable of variables) properties[variable.name] = variable.schema;
  return { type: 'object', properties, required: variables.filter((v) => v.alwaysAtEnd).map((v) => v.name) };
}

/** What a wait step's signal must carry: its declared payload schema, or any object. */
export function waitPayloadSchema(doc: WaitStepDoc): JsonSchema {
  return doc.wait.payload ?? { type: 'object' };
}

/** The loop a loop node runs. */
export function loopOf(node: StepNode): LoopStepDoc['loop'] {
  return (node.doc as LoopStepDoc).loop;
}
