/**
 * One tool as the catalogue holds it: its document, where it came from, its signature and derived
 * names. Apart from the catalogue so that the handler checks can read entries without a cycle.
 */
import type { JsonSchema } from '../../language/json.js';
import type { SourceFile } from '../load/source.js';
import type { ParameterDoc, ToolDocument } from '../model.js';
import type { DerivedNames } from '../names.js';

export interface HandlerRef {
  /** Absolute path of the module that exports the handler. */
  readonly modulePath: string;
  readonly exportName: string;
}

export interface CatalogueEntry {
  readonly name: string;
  readonly kind: 'function' | 'composite';
  readonly document: ToolDocument;
  readonly source: SourceFile;
  readonly parameters: readonly ParameterDoc[];
  readonly inputSchema: JsonSchema;
  /** The declared `returns`; null when the tool declares none. */
  readonly returns: JsonSchema | null;
  readonly names: DerivedNames;
  readonly handler: HandlerRef | null;
}
