/**
 * What an editor asks of a composite at one of its steps: which state variables and step outputs are
 * defined when the step starts, on every path or on some, and what each one holds. The composite's
 * checks run once more, listening to the data flow as it goes (their diagnostics are the build's to
 * report): one analysis, so that what completion offers is what the checks accept.
 */
import type { JsonSchema } from '../../language/json.js';
import type { CatalogueEntry, Catalogue } from '../resolve/catalogue.js';
import { checkComposite } from './composite.js';
import type { CheckEnvironment } from './environment.js';
import type { Definitions } from './flow.js';
import type { CheckResult } from './index.js';
import { outputSchemas, variableSchemas } from './state-types.js';
import type { StepNode } from './steps.js';

/** Whether a name is defined where a step starts: on every path that reaches it, on some, or on none. */
export type Defined = 'always' | 'sometimes' | 'never';

export interface StepScope {
  readonly node: StepNode;
  /** False for a step no run reaches: nothing is known to be defined there. */
  readonly reached: boolean;
  /** A state variable's name, or `steps.<id>` for a step's output. */
  defined(name: string): Defined;
}

export interface CompositeScopes {
  /** Every step, those inside blocks included. */
  readonly steps: readonly StepScope[];
  /** What is known of each name's value: parameters, mapped outputs, transforms, loop items. */
  readonly variables: ReadonlyMap<string, JsonSchema>;
  readonly stepIds: ReadonlyMap<string, StepNode>;
  /** In DAG mode a step reads what the steps it depends on define, and `steps.x` adds a dependency. */
  readonly dag: boolean;
  /** What a step returns, as far as the signatures say. */
  outputOf(node: StepNode): JsonSchema | null;
}

/**
 * The checks' view of other tools, from a build's catalogue and results.
 *
 * @example environmentOf(catalogue, checked).returnsOf('echo_tool') // { type: 'object', … }
 */
export function environmentOf(catalogue: Catalogue, checked: CheckResult): CheckEnvironment {
  return {
    catalogue,
    returnsOf: (name) => checked.returns.get(name) ?? catalogue.remote(name)?.returns ?? null,
  };
}

/**
 * The scopes of a composite's steps.
 *
 * @example compositeScopes(entry, env).steps.find((s) => s.node.id === 'archive')?.defined('found_messages') // 'always'
 */
export function compositeScopes(entry: CatalogueEntry, env: CheckEnvironment): CompositeScopes {
  const seen = new Map<StepNode, Definitions | undefined>();
  const { analysis } = checkComposite(entry, env, (node, here) => seen.set(node, here));
  const outputOf = outputSchemas(env);
  const nodes = [...seen.keys()];
  const implementation = entry.document.implementation;
  const composite = implementation.type === 'composite' ? implementation.composite : null;
  return {
    steps: nodes.map((node) => scopeOf(node, seen.get(node))),
    variables: variableSchemas(entry, nodes, outputOf),
    stepIds: new Map(nodes.map((node) => [node.id, node])),
    dag: analysis.dag !== null || composite?.mode === 'dag',
    outputOf,
  };
}

function scopeOf(node: StepNode, here: Definitions | undefined): StepScope {
  return {
    node,
    reached: here !== undefined,
    defined: (name) => (!here || !here.may.has(name) ? 'never' : here.must.has(name) ? 'always' : 'sometimes'),
  };
}
