/**
 * What lowering hands to emit: one `LoweredTool` per tool, plain data with every default applied
 * and every decision made (names, paths, the plan, the handler's import, the test cases). Emit only
 * prints these; it reads no other stage and no disk.
 */
import type { JsonSchema, JsonValue } from '../../language/json.js';
import type { ChainPlan } from '../../language/plan.js';
import type { Stub, TestContext } from '../../language/testing.js';
import type { ToolPaths } from '../layout.js';
import type { DerivedNames } from '../names.js';
import type { AdapterName } from '../options.js';

export interface LoweredTool {
  readonly name: string;
  readonly names: DerivedNames;
  /** The YAML file, relative to the project root: the banner names it. */
  readonly source: string;
  /** Where its module and test go. */
  readonly paths: ToolPaths;
  readonly description: string;
  /** `display_name`, when the YAML gives one. */
  readonly displayName: string | null;
  /** The JSON Schema of its input. */
  readonly parameters: JsonSchema;
  readonly policies: {
    readonly requiresCasefile: boolean;
    readonly requiredPermissions: readonly string[];
    readonly timeoutSeconds: number | null;
  };
  readonly audit: {
    readonly successEvent: string;
    readonly failureEvent: string;
    readonly redactFields: readonly string[];
  };
  readonly implementation: LoweredFunction | LoweredComposite;
  readonly tests: ToolTests;
}

export interface LoweredFunction {
  readonly kind: 'function';
  /** The declared `returns`; null when it declares none. */
  readonly returns: JsonSchema | null;
  /** What the handler receives when some parameters have defaults (they are then always there); else null. */
  readonly handlerInput: JsonSchema | null;
  /** `specifier` is relative to the tool's module, with the `.js` extension TypeScript resolves. */
  readonly handler: { readonly exportName: string; readonly specifier: string };
}

export interface LoweredComposite {
  readonly kind: 'composite';
  /** The state at the end of a run: what the composite returns. */
  readonly state: JsonSchema;
  /** Its output schema: the `returns` it declares (the check proved the state keeps it), or else the state's. */
  readonly returns: JsonSchema;
  readonly plan: ChainPlan;
  /** It has a wait step: a durable run of it may come back suspended. */
  readonly suspends: boolean;
  /** Each step's line in the YAML, by step id, in document order: carried beside the plan, never in it. */
  readonly stepLines: Readonly<Record<string, number>>;
}

export interface ToolTests {
  readonly examples: readonly ExampleTest[];
  readonly errorScenarios: readonly ErrorScenarioTest[];
  /** The test of the first step's `on_failure`; null when there is none to make. */
  readonly failurePolicy: FailurePolicyTest | null;
}

/** One run of the tool in a test: who calls, with which doubles, with what input. */
export interface TestRun {
  readonly title: string;
  readonly context: TestContext;
  /** Test doubles by tool name; null when there are none. */
  readonly stubs: Readonly<Record<string, Stub>> | null;
  readonly input: { readonly [name: string]: JsonValue };
  /** The input is not valid for the tool's types (an error scenario may pass it on purpose). */
  readonly castsInput: boolean;
}

export interface ExampleTest extends TestRun {
  /** The expected output; null when the example states none. */
  readonly expected: { readonly value: JsonValue } | null;
}

export interface ErrorScenarioTest extends TestRun {
  /** The fields the failure must have (`kind`, `step`), as the YAML lists them. */
  readonly expectedError: { readonly [field: string]: JsonValue };
  readonly messageContains: string | null;
}

/** The first step is made to fail; the test states what its policy promises. */
export interface FailurePolicyTest extends TestRun {
  readonly step: string;
  readonly attempts: number;
  /** The wait before each attempt, in ms: 0 before the first. */
  readonly waits: readonly number[];
  /** The fallback that serves the step once it failed; null when none does. */
  readonly servedBy: string | null;
  /** In a DAG the step's attempts are picked out by its id, since independent steps interleave. */
  readonly dag: boolean;
  /** The chain stops with the step's failure. */
  readonly stops: boolean;
  /** Where the chain continues; null when it continues to the end (or stops). */
  readonly nextStep: string | null;
}

/** A tool as the index lists it. */
export interface IndexedTool {
  readonly name: string;
  readonly names: DerivedNames;
}

/** The generated index: every tool that has a module. */
export interface LoweredIndex {
  readonly path: string;
  /** The config dir, relative to the project root: the banner names it. */
  readonly source: string;
  readonly tools: readonly IndexedTool[];
  /** The tools of other MCP servers, by server; absent when the lock pins none (the index is then as it always was). */
  readonly remote?: readonly IndexedServer[];
  /** The operations of HTTP APIs, by API; absent when the API lock pins none. */
  readonly apis?: readonly IndexedServer[];
}

/** A server's module as the index imports it. */
export interface IndexedServer {
  readonly slug: string;
  readonly tools: readonly IndexedTool[];
}

/** The tools of one MCP server, as its generated module declares them. */
export interface LoweredServer {
  readonly name: string;
  readonly slug: string;
  /** Its module: `servers/<slug>.ts`. */
  readonly path: string;
  /** The lock, relative to the project root: the banner names it. */
  readonly source: string;
  readonly tools: readonly LoweredRemoteTool[];
}

/** One tool of a server: its pin, verbatim, and the names its generated code uses. */
export interface LoweredRemoteTool {
  /** `<server>/<tool>`. */
  readonly name: string;
  /** Its name on the server. */
  readonly tool: string;
  readonly names: DerivedNames;
  readonly title: string | null;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** Null when the server declares none: its output then has no known shape. */
  readonly outputSchema: JsonSchema | null;
  readonly annotations: JsonSchema | null;
}

/** The operations of one HTTP API, as its generated module declares them. */
export interface LoweredApi {
  readonly name: string;
  readonly slug: string;
  /** Its module: `apis/<slug>.ts`. */
  readonly path: string;
  /** The API lock, relative to the project root: the banner names it. */
  readonly source: string;
  readonly operations: readonly LoweredOperation[];
}

/** One operation: what `defineApiOperation` is given, from its pin, and the names its generated code uses. */
export interface LoweredOperation {
  /** `<api>/<operation>`. */
  readonly name: string;
  readonly names: DerivedNames;
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly description: string;
  readonly parameters: readonly JsonValue[];
  readonly body: JsonValue;
  readonly success: readonly string[];
  readonly input: JsonSchema;
  /** Null when a success response's body has no known schema. */
  readonly output: JsonSchema | null;
}

/** `apis.ts`: how each declared API is reached, as the config writes it (`${NAME}` unread). */
export interface LoweredApisFile {
  readonly path: string;
  /** The config file, relative to the project root: the banner names it. */
  readonly source: string;
  readonly apis: Readonly<Record<string, JsonValue>>;
}

/** `mcp-servers.ts`: how each declared server is reached, as the config writes it. */
export interface LoweredMcpServers {
  readonly path: string;
  /** The config file, relative to the project root: the banner names it. */
  readonly source: string;
  /** By server name, sorted: `{ command, args, env, cwd }` or `{ url, headers }`, `${NAME}` unread. */
  readonly servers: Readonly<Record<string, JsonValue>>;
}

/** A framework's module: every tool the index lists, as that framework's tool (`adapters/<framework>.ts`). */
export interface LoweredAdapter {
  readonly framework: AdapterName;
  readonly path: string;
  /** The config dir, relative to the project root: the banner names it, as the index's does. */
  readonly source: string;
  /** In the index's order: its tools, then each server's. */
  readonly tools: readonly AdaptedTool[];
}

/** A tool as a framework offers it to a model. */
export interface AdaptedTool {
  readonly name: string;
  readonly names: DerivedNames;
  /** What the model calls it: the tool's name where models take it as it is, else one made of its words. */
  readonly modelName: string;
}
