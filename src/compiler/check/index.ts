/**
 * Stage 4: checks every tool against the catalogue. A composite's output is its state, so analysing
 * one composite may analyse the composites it calls first; each is analysed once.
 */
import type { JsonSchema } from '../../language/json.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Catalogue } from '../resolve/catalogue.js';
import { checkComposite, type CompositeAnalysis } from './composite.js';
import { checkCompositeReturns } from './composite-returns.js';
import type { CheckEnvironment } from './environment.js';
import { stateSchema } from './state-types.js';
import { calleesOf } from './callees.js';
import { checkDeclarations } from './declarations.js';
import { checkExamples } from './examples.js';
import { checkRecursion } from './recursion.js';
import { checkRemoteSchemas } from './remote-schemas.js';
import type { StepNode } from './steps.js';

export interface CheckResult {
  readonly analyses: ReadonlyMap<string, CompositeAnalysis>;
  /** Output schema per tool name: declared `returns`, or a composite's state. */
  readonly returns: ReadonlyMap<string, JsonSchema | null>;
  /** What each tool's own checks found (analysis and examples), by name. */
  readonly own: ReadonlyMap<string, readonly Diagnostic[]>;
  /** Everything found, by tool name: its own problems and the call cycles it is part of. */
  readonly diagnostics: ReadonlyMap<string, readonly Diagnostic[]>;
}

/** A previous result and the tools that changed since: the others keep their analysis. */
export interface CheckReuse {
  readonly previous: CheckResult;
  readonly dirty: ReadonlySet<string>;
}

/**
 * Lets go of a composite's analysis (once it is lowered, in a build that keeps nothing for the next):
 * a large project's analyses are a sixth of what its build holds.
 *
 * @example forgetAnalysis(checked, 'echo_chain_demo'); checked.analyses.has('echo_chain_demo') // false
 */
export function forgetAnalysis(result: CheckResult, name: string): void {
  (result.analyses as Map<string, CompositeAnalysis>).delete(name);
}

export function checkCatalogue(catalogue: Catalogue, reuse?: CheckReuse): CheckResult {
  const analyses = new Map<string, CompositeAnalysis>();
  const returns = new Map<string, JsonSchema | null>();
  const own = new Map<string, readonly Diagnostic[]>();
  const inProgress = new Set<string>();
  const env: CheckEnvironment = { catalogue, returnsOf };
  const reusable = (name: string) => reuse !== undefined && !reuse.dirty.has(name) && reuse.previous.own.has(name);

  function returnsOf(name: string): JsonSchema | null {
    if (returns.has(name)) return returns.get(name)!;
    const entry = catalogue.get(name);
    if (!entry) return catalogue.remote(name)?.returns ?? null;
    if (reusable(name)) {
      const previous = reuse!.previous;
      const analysis = previous.analyses.get(name);
      if (analysis) analyses.set(name, analysis);
      own.set(name, previous.own.get(name)!);
      returns.set(name, previous.returns.get(name) ?? null);
      return returns.get(name)!;
    }
    if (entry.kind === 'function') {
      returns.set(name, entry.returns);
      own.set(name, [...checkDeclarations(entry), ...checkExamples(entry, catalogue, { returnsOf, stepIds: null })]);
      return entry.returns;
    }
    if (inProgress.has(name)) return null; // recursion: reported by checkRecursion
    inProgress.add(name);
    const { analysis, diagnostics: found } = checkComposite(entry, env);
    inProgress.delete(name);
    analyses.set(name, analysis);
    // A declared returns the final state keeps is what callers see; one it cannot keep is an error.
    const promised = checkCompositeReturns(entry, analysis.state);
    // Its own examples are matched against the final state, which may hold more than returns declares.
    returns.set(name, stateSchema(analysis.state));
    const stepIds = allNodes(analysis.nodes).map((node) => node.id);
    own.set(name, [
      ...found,
      ...promised,
      ...checkDeclarations(entry),
      ...checkExamples(entry, catalogue, { returnsOf, stepIds }),
    ]);
    if (entry.returns && promised.length === 0) returns.set(name, entry.returns);
    const schema = returns.get(name)!;
    return schema;
  }

  for (const entry of catalogue.entries()) returnsOf(entry.name);
  const diagnostics = new Map<string, readonly Diagnostic[]>(own);
  for (const { tool, diagnostic } of [...checkRecursion(catalogue), ...checkRemoteSchemas(catalogue)]) {
    diagnostics.set(tool, [...(diagnostics.get(tool) ?? []), diagnostic]);
  }
  return { analyses, returns, own, diagnostics };
}

/**
 * The tools affected when `changed` tools change: those, and every composite that calls one of them,
 * directly or through others; with `stubs`, also the tools whose examples stub one.
 */
export function affectedBy(
  changed: ReadonlySet<string>,
  catalogue: Catalogue,
  options: { readonly stubs: boolean } = { stubs: true },
): Set<string> {
  const callers = new Map<string, string[]>();
  const calls = (caller: string, callee: string) => {
    const list = callers.get(callee) ?? [];
    list.push(caller);
    callers.set(callee, list);
  };
  for (const entry of catalogue.entries()) {
    const { document } = entry;
    for (const callee of calleesOf(document)) calls(entry.name, callee);
    // Examples depend on the tools they stub (their checks do; their code does not).
    if (!options.stubs) continue;
    for (const example of [...(document.examples ?? []), ...(document.error_scenarios ?? [])]) {
      for (const stubbed of Object.keys(example.stubs ?? {})) calls(entry.name, stubbed);
    }
  }
  const affected = new Set(changed);
  const queue = [...changed];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    for (const caller of callers.get(name) ?? []) {
      if (!affected.has(caller)) {
        affected.add(caller);
        queue.push(caller);
      }
    }
  }
  return affected;
}

/** Every step of a composite, those inside blocks included. */
function allNodes(nodes: readonly StepNode[]): StepNode[] {
  return nodes.flatMap((node) => [
    node,
    ...allNodes(node.body ?? []),
    ...(node.branches ?? []).flatMap((branch) => allNodes(branch.nodes)),
  ]);
}
