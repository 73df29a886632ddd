/**
 * The tool YAML as TypeScript types: what a document looks like once it passed the JSON Schema.
 * Field names are the YAML's own.
 */
import type { FailureKind } from '../language/failures.js';
import type { JsonSchema, JsonValue } from '../language/json.js';
import type { SourceFile } from './load/source.js';

export type ParameterType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

export interface ShapeDoc {
  readonly type?: ParameterType;
  readonly description?: string;
  readonly enum?: readonly JsonValue[];
  readonly min_length?: number;
  readonly max_length?: number;
  readonly min_value?: number;
  readonly max_value?: number;
  readonly pattern?: string;
  readonly items?: ShapeDoc;
  /** For an object: its fields. */
  readonly properties?: readonly ParameterDoc[];
}

export interface ParameterDoc extends ShapeDoc {
  readonly name: string;
  readonly required?: boolean;
  readonly default?: JsonValue;
}

/** What every kind of step has. */
interface StepCommon {
  readonly id?: string;
  readonly description?: string;
  /** A JSONata expression; when false the step is skipped. */
  readonly when?: string;
  /** DAG mode: the steps that must succeed first. */
  readonly depends_on?: readonly string[];
  readonly on_success?: {
    readonly map_outputs?: Readonly<Record<string, string>>;
    readonly transform?: Readonly<Record<string, string>>;
    readonly next?: string;
  };
  readonly on_failure?: {
    readonly action?: 'stop' | 'retry' | 'continue';
    readonly retry_on?: readonly string[];
    readonly no_retry_on?: readonly string[];
    readonly max_retries?: number;
    readonly initial_delay_ms?: number;
    readonly backoff_factor?: number;
    readonly max_delay_ms?: number;
    readonly jitter?: boolean;
    readonly continue_on_max_retries?: boolean;
    readonly next?: string;
  };
}

export interface CallStepDoc extends StepCommon {
  readonly tool: string;
  readonly inputs?: { readonly [name: string]: JsonValue };
  readonly timeout_ms?: number;
  readonly fallbacks?: readonly string[];
  readonly cache?: { readonly ttl_seconds: number; readonly shared?: boolean };
  /** JSONata conditions a call that succeeded must meet, else its attempt fails (`unmet`): one, or a list that must all hold. */
  readonly success_when?: string | readonly string[];
}

/** A branch of a parallel block: one step, or several under an id. */
export type BranchDoc = StepDoc | { readonly id: string; readonly steps: readonly StepDoc[] };

export interface ParallelStepDoc extends StepCommon {
  readonly parallel: readonly BranchDoc[];
  readonly wait_for?: 'all' | 'any' | 'first_success';
  readonly concurrency?: number;
}

export interface LoopStepDoc extends StepCommon {
  readonly loop: {
    readonly over: string;
    readonly as: string;
    readonly concurrency?: number;
    readonly max_failures?: number;
    readonly steps: readonly StepDoc[];
  };
}

/**
 * Branching: the first choice whose `when` holds names the next step, else `default`. The schema
 * refuses the fields a choice has no use for; the types say so with `undefined`.
 */
export interface ChoiceStepDoc extends StepCommon {
  readonly choose: readonly { readonly when: string; readonly next: string }[];
  readonly default: string;
  readonly when?: undefined;
  readonly depends_on?: undefined;
  readonly on_success?: undefined;
  readonly on_failure?: undefined;
}

/** Suspends a durable run until a person (or a system) sends the named signal. */
export interface WaitStepDoc extends StepCommon {
  readonly wait: { readonly signal: string; readonly payload?: JsonSchema; readonly timeout_seconds?: number };
}

export type StepDoc = CallStepDoc | ParallelStepDoc | LoopStepDoc | ChoiceStepDoc | WaitStepDoc;

export function isCall(step: StepDoc): step is CallStepDoc {
  return 'tool' in step;
}

export function isChoice(step: StepDoc): step is ChoiceStepDoc {
  return 'choose' in step;
}

export function isWait(step: StepDoc): step is WaitStepDoc {
  return 'wait' in step;
}

export interface ContextDoc {
  readonly user_id?: string;
  readonly session_id?: string;
  readonly casefile_id?: string | null;
  readonly permissions?: readonly string[];
}

/** An API operation's response in a stub: its status and headers, beside the output (its body). */
export interface StubHttpDoc {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

export type StubResponseDoc =
  | { readonly output: JsonValue; readonly response?: StubHttpDoc }
  | { readonly error: string; readonly response?: StubHttpDoc };
export type StubDoc =
  StubResponseDoc | { readonly sequence: readonly StubResponseDoc[]; readonly response?: StubHttpDoc };

export interface ExampleDoc {
  readonly description: string;
  readonly context?: ContextDoc;
  readonly input: { readonly [name: string]: JsonValue };
  readonly stubs?: Readonly<Record<string, StubDoc>>;
  readonly expected_output?: JsonValue;
}

export interface ErrorScenarioDoc {
  readonly description: string;
  readonly context?: ContextDoc;
  readonly input: { readonly [name: string]: JsonValue };
  readonly stubs?: Readonly<Record<string, StubDoc>>;
  readonly expected_error: { readonly kind?: FailureKind; readonly message_contains?: string; readonly step?: string };
}

export interface ToolDocument {
  readonly name: string;
  readonly display_name?: string;
  readonly description: string;
  readonly category?: string;
  readonly version?: string;
  readonly tags?: readonly string[];
  readonly parameters?: readonly ParameterDoc[];
  readonly returns?: JsonSchema | boolean;
  readonly policies?: {
    readonly requires_casefile?: boolean;
    readonly required_permissions?: readonly string[];
    readonly timeout_seconds?: number;
  };
  readonly audit?: {
    readonly success_event?: string;
    readonly failure_event?: string;
    readonly redact_fields?: readonly string[];
  };
  readonly examples?: readonly ExampleDoc[];
  readonly error_scenarios?: readonly ErrorScenarioDoc[];
  readonly implementation:
    | { readonly type: 'function'; readonly module: string; readonly export: string }
    | {
        readonly type: 'composite';
        readonly composite: {
          readonly steps: readonly StepDoc[];
          readonly max_step_executions?: number;
          readonly allow_next_tools?: readonly string[];
          readonly max_next_tool_depth?: number;
          readonly mode?: 'sequence' | 'dag';
          readonly output_steps?: readonly string[];
        };
      };
}

/** A valid document with the file it came from. */
export interface ToolSource {
  readonly document: ToolDocument;
  readonly source: SourceFile;
}
