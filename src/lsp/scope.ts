/**
 * What a document knows at a cursor: the tool it compiled to (the last time it compiled, when what is
 * typed now does not), and for a composite the scope of the step the cursor is in.
 */
import type { YamlPath } from '../compiler/load/source.js';
import type { CatalogueEntry } from '../compiler/resolve/catalogue.js';
import { compositeScopes, environmentOf, type CompositeScopes, type StepScope } from '../compiler/check/scopes.js';
import type { ProjectState } from './project.js';

const memo = new WeakMap<object, WeakMap<CatalogueEntry, CompositeScopes>>();

/** The scopes of a composite, worked out once per build. */
export function scopesOf(state: ProjectState, entry: CatalogueEntry): CompositeScopes | null {
  if (entry.kind !== 'composite') return null;
  let byEntry = memo.get(state.checked);
  if (!byEntry) {
    byEntry = new WeakMap();
    memo.set(state.checked, byEntry);
  }
  let scopes = byEntry.get(entry);
  if (!scopes) {
    scopes = compositeScopes(entry, environmentOf(state.catalogue, state.checked));
    byEntry.set(entry, scopes);
  }
  return scopes;
}

/** The step whose YAML holds the path: the deepest step whose path starts it. */
export function stepScopeAt(scopes: CompositeScopes, path: YamlPath): StepScope | null {
  let best: StepScope | null = null;
  for (const scope of scopes.steps) {
    const at = scope.node.path;
    if (at.length > path.length || (best && best.node.path.length >= at.length)) continue;
    if (at.every((segment, index) => segment === path[index])) best = scope;
  }
  return best;
}
