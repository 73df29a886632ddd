/**
 * One tool as the catalogue holds it: a local one (its document, where it came from, its signature and
 * derived names) or one on another MCP server (its pin). Apart from the catalogue so that the handler
 * checks can read entries without a cycle.
 */
import type { JsonSchema } from '../../language/json.js';
import type { LockedOperation } from '../../remote/lock/api-format.js';
import type { LockedTool } from '../../remote/lock/format.js';
import type { SourceFile, YamlPath } from '../load/source.js';
import type { ParameterDoc, ToolDocument } from '../model.js';
import type { DerivedNames } from '../names.js';
import type { SkippedPart } from './pinned-schemas.js';

export interface HandlerRef {
  /** Absolute path of the module that exports the handler. */
  readonly modulePath: string;
  readonly exportName: string;
}

/** What a call is checked against, whoever serves it: its name, parameters and output schema. */
export interface ToolSignature {
  readonly name: string;
  readonly parameters: readonly ParameterDoc[];
  /** What it returns as the checks read it; null when unknown. */
  readonly returns: JsonSchema | null;
  readonly names: DerivedNames;
  /** It takes names its parameters do not list: a step's input names are not checked. */
  readonly openInput?: boolean;
}

export interface CatalogueEntry extends ToolSignature {
  readonly kind: 'function' | 'composite';
  readonly document: ToolDocument;
  readonly source: SourceFile;
  readonly inputSchema: JsonSchema;
  /** The declared `returns`; null when the tool declares none. */
  readonly returns: JsonSchema | null;
  readonly handler: HandlerRef | null;
}

/** What the checks read of a pinned tool, whoever serves it: an MCP server or an HTTP API. */
interface PinnedEntry extends ToolSignature {
  readonly kind: 'remote';
  /** The MCP server's name, or the API's (one namespace). */
  readonly server: string;
  /** Its name there: the tool's, or the operation's. */
  readonly tool: string;
  readonly description: string;
  /** The lock, and where the pin is in it. */
  readonly lock: SourceFile;
  readonly at: YamlPath;
  /** The output schema with what the checks cannot follow taken as any value; null when its shape is unknown. */
  readonly returns: JsonSchema | null;
  /** Parts of its schemas the checks skip (each taken as any value), each at its path in the pin. */
  readonly skipped: readonly SkippedPart[];
}

/** A tool of another MCP server, `<server>/<tool>`, as the MCP lock pins it. */
export interface McpToolEntry extends PinnedEntry {
  readonly via: 'mcp';
  /** The pin, verbatim: what the generated definition carries. */
  readonly pin: LockedTool;
}

/** An operation of an HTTP API, `<api>/<operation>`, as the API lock pins it. */
export interface ApiOperationEntry extends PinnedEntry {
  readonly via: 'api';
  readonly pin: LockedOperation;
  /** The step's input (parameters by key, `body`) and output (the success body) as the generated code carries them. */
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema | null;
}

export type RemoteEntry = McpToolEntry | ApiOperationEntry;
