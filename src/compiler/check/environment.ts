/**
 * What the checks of one composite share: the catalogue they consult, and the scope a step's
 * references are checked in. Its own module so the checks can import it without importing each other.
 */
import type { JsonSchema } from '../../language/json.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Catalogue, CatalogueEntry } from '../resolve/catalogue.js';
import type { StepNode } from './steps.js';

/** What the checks need to know about other tools. */
export interface CheckEnvironment {
  readonly catalogue: Catalogue;
  /** The output schema of a tool: declared `returns`, or a composite's state. */
  returnsOf(name: string): JsonSchema | null;
}

/** Where a composite's templates and expressions are checked: its steps, names and their types. */
export interface ReferenceScope {
  readonly outputSchema: (node: StepNode) => JsonSchema | null;
  readonly allNames: readonly string[];
  readonly stepIds: ReadonlyMap<string, StepNode>;
  readonly variableSchema: ReadonlyMap<string, JsonSchema>;
  readonly env: CheckEnvironment;
  readonly entry: CatalogueEntry;
  readonly report: (d: Diagnostic) => void;
}
