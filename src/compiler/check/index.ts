/**
 * Stage 4: checks every tool against the catalogue. A composite's output is its state, so analysing
 * one composite may analyse the composites it calls first; each is analysed once.
 */
import type { JsonSchema } from '../../runtime/index.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Catalogue } from '../resolve/catalogue.js';
import { checkComposite, stateSchema, type CheckEnvironment, type CompositeAnalysis } from './composite.js';
import { checkExamples } from './examples.js';
import { checkRecursion } from './recursion.js';

export interface CheckResult {
  readonly analyses: ReadonlyMap<string, CompositeAnalysis>;
  /** Output schema per tool name: declared `returns`, or a composite's state. */
  readonly returns: ReadonlyMap<string, JsonSchema | null>;
  /** Diagnostics per tool name. */
  readonly diagnostics: ReadonlyMap<string, readonly Diagnostic[]>;
}

export function checkCatalogue(catalogue: Catalogue): CheckResult {
  const analyses = new Map<string, CompositeAnalysis>();
  const returns = new Map<string, JsonSchema | null>();
  const diagnostics = new Map<string, Diagnostic[]>();
  const inProgress = new Set<string>();
  const env: CheckEnvironment = { catalogue, returnsOf };

  function returnsOf(name: string): JsonSchema | null {
    if (returns.has(name)) return returns.get(name)!;
    const entry = catalogue.get(name);
    if (!entry) return null;
    if (entry.kind === 'function') {
      returns.set(name, entry.returns);
      return entry.returns;
    }
    if (inProgress.has(name)) return null; // recursion: reported by checkRecursion
    inProgress.add(name);
    const { analysis, diagnostics: found } = checkComposite(entry, env);
    inProgress.delete(name);
    analyses.set(name, analysis);
    diagnostics.set(name, found);
    const schema = stateSchema(analysis.state);
    returns.set(name, schema);
    return schema;
  }

  for (const entry of catalogue.entries()) {
    returnsOf(entry.name);
    const found = checkExamples(entry, catalogue);
    if (found.length > 0) diagnostics.set(entry.name, [...(diagnostics.get(entry.name) ?? []), ...found]);
  }
  for (const { tool, diagnostic } of checkRecursion(catalogue)) {
    diagnostics.set(tool, [...(diagnostics.get(tool) ?? []), diagnostic]);
  }
  return { analyses, returns, diagnostics };
}
