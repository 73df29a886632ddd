/**
 * Every diagnostic toolgen can report: its stable code, its severity, and the wording, as templates
 * with named `{placeholders}` (the way TypeScript keeps `diagnosticMessages.json`). Codes never change
 * meaning; retired codes are not reused (retired: TG5005, TG6001). One code may have several entries
 * when one problem reads differently in different places. Ranges: 1xxx input files, 2xxx catalogue,
 * 3xxx step graph, 4xxx data flow and templates, 5xxx tool signatures.
 *
 * A "did you mean" is not part of any template: it is the diagnostic's `suggestion`, worded in one place.
 */
export type Severity = 'error' | 'warning';

/** One entry of the catalogue. */
export interface DiagnosticTemplate {
  readonly code: `TG${number}`;
  readonly severity: Severity;
  readonly message: string;
  /** What to do about it, when the message alone does not say. */
  readonly hint?: string;
}

const NAME_FIELD = 'tools are the YAML files under the config dir, by their name field';
const NEXT_IS_A_STEP = 'next names a step id (or end), not a tool';
const RECURSION = 'a composite cannot call itself: a run would never end';
const NAME_CLASH = 'rename one of them so their names differ in letters or digits';
const STATE_HOLDS = 'state holds the parameters and what map_outputs and transform set';

export const CATALOGUE = {
  // Input files
  YAML_SYNTAX: { code: 'TG1001', severity: 'error', message: '{reason} ({yamlCode})' },
  YAML_VALUE: { code: 'TG1001', severity: 'error', message: '{reason}' },
  YAML_WARNING: { code: 'TG1002', severity: 'warning', message: '{reason} ({yamlCode})' },
  FILE_UNREADABLE: { code: 'TG1003', severity: 'error', message: 'cannot read the file: {reason}' },
  NOT_A_TOOL: {
    code: 'TG1004',
    severity: 'error',
    message: 'this YAML is not a tool: it has no name, description or implementation',
    hint: "not every YAML under the config dir must be a tool: add it to exclude in toolgen.config.yaml (exclude: ['{path}'])",
  },
  CONFIG_FILE: { code: 'TG1005', severity: 'error', message: '{problem}', hint: 'toolgen.config.yaml takes configDir, outDir, templatesDir, include and exclude' },
  SCHEMA_VIOLATION: { code: 'TG1101', severity: 'error', message: '{where} {reason}' },
  SCHEMA_STUB_SHAPE: { code: 'TG1101', severity: 'error', message: "{where} must have exactly one of 'output', 'error' or 'sequence'" },
  SCHEMA_UNKNOWN_FIELD: { code: 'TG1102', severity: 'error', message: "unknown field '{field}' in {where}", hint: 'allowed here: {allowed}' },
  SCHEMA_OLD_FIELD: { code: 'TG1102', severity: 'error', message: "unknown field '{field}' in {where}", hint: "'{field}' is the original format's; in toolgen: {replacement}. npx toolgen migrate SRC DEST converts whole files" },
  SCHEMA_OLD_FIELD_NO_EQUIVALENT: {
    code: 'TG1102',
    severity: 'error',
    message: "unknown field '{field}' in {where}",
    hint: "'{field}' is from the original format, and toolgen has no equivalent; npx toolgen migrate SRC DEST converts whole files and keeps such fields as comments",
  },
  SCHEMA_MISSING_FIELD: { code: 'TG1103', severity: 'error', message: "{where} is missing the required field '{field}'" },
  SCHEMA_WRONG_TYPE: { code: 'TG1104', severity: 'error', message: '{where} must be {type}' },
  SCHEMA_BAD_VALUE: { code: 'TG1105', severity: 'error', message: '{where} must be one of {allowed}' },
  SCHEMA_OLD_IMPLEMENTATION: {
    code: 'TG1105',
    severity: 'error',
    message: '{where} must be one of {allowed}',
    hint: "'{value}' is an implementation type of the original format: write a TypeScript handler (type: function, module, export), or run npx toolgen migrate SRC DEST, which writes a stub",
  },
  SCHEMA_PATTERN: { code: 'TG1105', severity: 'error', message: '{where} must match {pattern}' },
  SCHEMA_NAME_PATTERN: { code: 'TG1105', severity: 'error', message: '{where} must match {pattern}', hint: 'use letters, digits and underscores, starting with a letter or underscore' },
  SCHEMA_ID_PATTERN: { code: 'TG1105', severity: 'error', message: '{where} must match {pattern}', hint: 'use letters, digits, underscores and hyphens, starting with a letter or underscore' },
  // Catalogue of tools
  DUPLICATE_TOOL: { code: 'TG2001', severity: 'error', message: "tool name '{name}' is already used by {where}", hint: 'tool names must be unique across the config dir; rename one of them' },
  UNKNOWN_TOOL: { code: 'TG2002', severity: 'error', message: "no tool named '{name}'", hint: NAME_FIELD },
  HANDLER_MODULE_MISSING: { code: 'TG2003', severity: 'error', message: "module '{module}' does not exist", hint: 'the path is relative to this YAML file' },
  HANDLER_EXPORT_MISSING: { code: 'TG2004', severity: 'error', message: "'{file}' does not export '{export}'", hint: 'it exports: {exports}' },
  HANDLER_EXPORTS_NOTHING: { code: 'TG2004', severity: 'error', message: "'{file}' does not export '{export}'", hint: 'it exports nothing' },
  FILE_NAME_CLASH: { code: 'TG2005', severity: 'error', message: "tools '{first}' and '{second}' would both generate '{file}'", hint: NAME_CLASH },
  IDENTIFIER_CLASH: { code: 'TG2005', severity: 'error', message: "tools '{first}' and '{second}' would both generate the identifier '{identifier}'", hint: NAME_CLASH },
  RECURSIVE_COMPOSITE: { code: 'TG2006', severity: 'error', message: "'{tool}' calls itself through {cycle}", hint: RECURSION },
  SELF_CALLING_COMPOSITE: { code: 'TG2006', severity: 'error', message: "'{tool}' calls itself", hint: RECURSION },
  UNKNOWN_NAME: { code: 'TG2007', severity: 'error', message: "no tool named '{name}' under the config dir" },
  HELD_BACK: { code: 'TG2008', severity: 'error', message: "'{tool}' is not built: it calls '{callee}', which has errors", hint: "fix '{callee}' first; the previous '{tool}' stays as it was" },
  // Step graph
  DUPLICATE_STEP_ID: { code: 'TG3001', severity: 'error', message: "step id '{id}' is used by an earlier step", hint: 'step ids must be unique within a composite, nested steps included' },
  DUPLICATE_BRANCH_ID: { code: 'TG3001', severity: 'error', message: "branch id '{id}' is used by an earlier branch of '{block}'" },
  UNKNOWN_NEXT: { code: 'TG3002', severity: 'error', message: "next '{name}' names no step", hint: 'steps here: {steps}, or end' },
  NEXT_NAMES_TOOL: { code: 'TG3002', severity: 'error', message: "no step has id '{name}'; the step calling tool '{name}' has id {ids}", hint: NEXT_IS_A_STEP },
  NEXT_NAMES_TOOL_OF_STEPS: { code: 'TG3002', severity: 'error', message: "no step has id '{name}'; the steps calling tool '{name}' have ids {ids}", hint: NEXT_IS_A_STEP },
  AMBIGUOUS_NEXT: { code: 'TG3003', severity: 'error', message: "next '{name}' could mean any of the steps {ids} (all call '{name}')", hint: 'give those steps an explicit id and name it in next' },
  UNREACHABLE_STEP: { code: 'TG3004', severity: 'error', message: "step '{step}' can never run: no step leads to it", hint: 'point a next at it, or remove it' },
  ENDLESS_LOOP: { code: 'TG3005', severity: 'error', message: 'the steps {cycle} loop with no way out: no path from them reaches the end', hint: 'send one of these steps to a step outside the loop, or to end' },
  EMPTY_COMPOSITE: { code: 'TG3006', severity: 'error', message: 'a composite tool needs at least one step' },
  USELESS_NEXT: { code: 'TG3007', severity: 'warning', message: 'this next is never followed: the chain stops on failure' },
  USELESS_NEXT_AFTER_RETRIES: { code: 'TG3007', severity: 'warning', message: 'this next is never followed: after the retries the chain stops unless continue_on_max_retries is true' },
  USELESS_RETRY_SETTING: { code: 'TG3008', severity: 'warning', message: "{setting} does nothing here: this step's on_failure action is {action}", hint: 'set action: retry, or remove it' },
  BLOCK_RETRY: { code: 'TG3009', severity: 'error', message: 'a {block} cannot retry as a whole', hint: 'retry the steps inside it, or use stop or continue here' },
  DAG_NEXT: { code: 'TG3010', severity: 'error', message: 'next has no meaning in a DAG: a step runs when the steps it depends on have succeeded', hint: 'use depends_on' },
  DEPENDENCY_CYCLE: { code: 'TG3011', severity: 'error', message: 'the steps depend on each other in a cycle: {cycle}', hint: 'a step can only use what steps before it produced' },
  // Data flow and templates
  UNDEFINED_VARIABLE: { code: 'TG4001', severity: 'error', message: 'state.{name} is never defined', hint: STATE_HOLDS },
  VARIABLE_NOT_YET_DEFINED: { code: 'TG4001', severity: 'error', message: 'state.{name} is not defined on any path that reaches this step', hint: 'it is set by a step that has not succeeded before this one' },
  STEP_NOT_YET_SUCCEEDED: { code: 'TG4001', severity: 'error', message: "step '{step}' has not succeeded on any path that reaches this step" },
  MAYBE_UNDEFINED_VARIABLE: { code: 'TG4002', severity: 'warning', message: 'state.{name} is defined on some paths that reach this step, not all', hint: 'this step fails with an unresolved reference on the other paths' },
  OPTIONAL_PARAMETER_UNSET: { code: 'TG4002', severity: 'warning', message: 'state.{name} is an optional parameter with no default: it is missing when the caller leaves it out', hint: 'give the parameter a default, or make it required' },
  STEP_MAYBE_SUCCEEDED: { code: 'TG4002', severity: 'warning', message: "step '{step}' has succeeded on some paths that reach this step, not all" },
  TEMPLATE_SYNTAX: { code: 'TG4003', severity: 'error', message: '{problem}' },
  SEED_TEMPLATE: { code: 'TG4004', severity: 'warning', message: "'{text}' is passed to the tool as literal text", hint: 'toolgen templates are written {replacement}' },
  RESERVED_NAME: { code: 'TG4005', severity: 'error', message: "'{name}' is reserved and cannot name a state variable" },
  RESERVED_PARAMETER_NAME: { code: 'TG4005', severity: 'error', message: "'{name}' is reserved and cannot name a parameter", hint: 'reserved: {reserved}' },
  RESERVED_STEP_ID: { code: 'TG4005', severity: 'error', message: "'end' cannot be a step id: next: end ends the chain" },
  UNKNOWN_STEP_REFERENCE: { code: 'TG4006', severity: 'error', message: "no step has id '{step}'" },
  UNKNOWN_OUTPUT_FIELD: { code: 'TG4007', severity: 'error', message: "the output of '{tool}'{path} has no field '{field}'", hint: 'declared fields: {fields}' },
  UNKNOWN_BLOCK_OUTPUT_FIELD: { code: 'TG4007', severity: 'error', message: "the output of step '{step}'{path} has no field '{field}'", hint: 'declared fields: {fields}' },
  UNKNOWN_STATE_FIELD: { code: 'TG4007', severity: 'error', message: "state.{path} has no field '{field}'", hint: 'declared fields: {fields}' },
  EXPRESSION_SYNTAX: { code: 'TG4008', severity: 'error', message: 'this JSONata expression does not parse: {reason}', hint: 'for example: state.balance < 100, or $sum(state.items.price)' },
  TEMPLATE_AS_EXPRESSION: { code: 'TG4008', severity: 'error', message: "'{text}' is a template, and this takes a JSONata expression", hint: 'write it without the brackets: {expression}' },
  // Tool signatures
  UNKNOWN_INPUT: { code: 'TG5001', severity: 'error', message: "'{tool}' has no parameter '{name}'", hint: 'its parameters: {parameters}' },
  UNKNOWN_INPUT_NO_PARAMETERS: { code: 'TG5001', severity: 'error', message: "'{tool}' has no parameter '{name}'", hint: "'{tool}' takes no parameters" },
  MISSING_INPUT: { code: 'TG5002', severity: 'error', message: "'{tool}' requires {names}, and this step does not pass it" },
  MISSING_INPUTS: { code: 'TG5002', severity: 'error', message: "'{tool}' requires {names}, and this step does not pass them" },
  INPUT_TYPE: { code: 'TG5003', severity: 'error', message: "{value} is not a valid '{name}' for '{tool}': {problems}" },
  INPUT_SHAPE: { code: 'TG5003', severity: 'error', message: "'{name}' of '{tool}' must be {types}, not {given}" },
  INPUT_TEXT_WITH_TEMPLATES: {
    code: 'TG5003',
    severity: 'error',
    message: "'{name}' of '{tool}' must be {types}, and text with templates inside is always a string",
    hint: 'to pass a value with its type, make the value exactly one template: << state.x >>',
  },
  INPUT_TEMPLATE_TYPE: { code: 'TG5003', severity: 'error', message: "'{name}' of '{tool}' must be {types}, but << {reference} >> is {given}" },
  UNKNOWN_OUTPUT: { code: 'TG5004', severity: 'error', message: "'{tool}' returns no '{path}'", hint: 'its returns declare: {fields}' },
  UNKNOWN_BLOCK_OUTPUT: { code: 'TG5004', severity: 'error', message: "the {block} '{step}' returns no '{path}'", hint: 'its returns declare: {fields}' },
  MAP_OUTPUT_NOT_A_PATH: { code: 'TG5004', severity: 'error', message: "'{source}' is not a path: {reason}" },
  EXAMPLE_INPUT: { code: 'TG5006', severity: 'error', message: "this example's input is not valid input for '{tool}': {problems}", hint: 'invalid input belongs in error_scenarios' },
  NO_EXAMPLES: { code: 'TG5007', severity: 'warning', message: "'{tool}' has no examples or error_scenarios, so no test is generated for it", hint: 'add an example: description, input and expected_output' },
  UNKNOWN_STUB: { code: 'TG5008', severity: 'error', message: "cannot stub '{name}': no tool has that name" },
  LOOP_OVER_NOT_LIST: { code: 'TG5009', severity: 'error', message: 'a loop goes over a list, and << {reference} >> is {types}', hint: 'point over at a list in state' },
} as const satisfies Record<string, DiagnosticTemplate>;

export type DiagnosticId = keyof typeof CATALOGUE;
