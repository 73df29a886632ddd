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
const RETURNS_IS_STATE = 'a composite returns its final state: its parameters and what map_outputs and transform set';
const STATE_HOLDS = 'state holds the parameters and what map_outputs and transform set';
const PULL_AGAIN = 'npx toolgen mcp pull writes the lock: run it again to pin {server} afresh, or undo the edit';
const SERVER_NAMES =
  'a tool on another MCP server is named <server>/<tool>, the server as mcpServers in toolgen.config.yaml names it (pinned by npx toolgen mcp pull): here {servers}';
const SERVER_OR_API_NAMES =
  'a tool on another MCP server is named <server>/<tool>, an operation of an HTTP API <api>/<operation>, each name as toolgen.config.yaml declares it under mcpServers or apis: here {servers}';

export const CATALOGUE = {
  // Input files
  YAML_SYNTAX: { code: 'TG1001', severity: 'error', message: '{reason} ({yamlCode}){more}' },
  YAML_UNQUOTED_TEMPLATE: {
    code: 'TG1001',
    severity: 'error',
    message: 'a {template} template must be quoted in YAML: unquoted, it reads as a mapping{more}',
    hint: "write {quoted} in quotes, or toolgen's own template, which needs none: << state.x >>",
  },
  YAML_UNQUOTED_COLON: {
    code: 'TG1001',
    severity: 'error',
    message: "the value of '{key}' holds ': ', which YAML reads as a mapping inside it{more}",
    hint: 'quote the whole value: {quoted}',
  },
  YAML_DUPLICATE_KEY: {
    code: 'TG1001',
    severity: 'error',
    message: "'{key}' is a key of this mapping already{more}",
    hint: 'keep one of the two: merge what they hold under the first, or remove this one',
  },
  YAML_TAB: {
    code: 'TG1001',
    severity: 'error',
    message: 'a tab indents this line, and YAML indents with spaces only{more}',
    hint: 'replace the tab with spaces',
  },
  YAML_UNCLOSED_QUOTE: {
    code: 'TG1001',
    severity: 'error',
    message: 'this quote is never closed{more}',
    hint: 'close it on the same line; for text over several lines, use a block scalar (description: |)',
  },
  YAML_UNCLOSED_BRACKET: {
    code: 'TG1001',
    severity: 'error',
    message: "this '{bracket}' is never closed{more}",
    hint: "close it with '{closing}' (a flow list or mapping may span lines, but each of its lines must be indented past the key's), or write the items as a block, one per line",
  },
  YAML_BAD_INDENT: {
    code: 'TG1001',
    severity: 'error',
    message: 'this line is indented differently from the items before it{more}',
    hint: 'items of one list, and keys of one mapping, start at the same column',
  },
  YAML_VALUE: { code: 'TG1001', severity: 'error', message: '{reason}' },
  YAML_RECURSIVE_ALIAS: {
    code: 'TG1001',
    severity: 'error',
    message: 'the alias *{alias} is inside the node it names, so its value would never end',
    hint: 'point the alias at a node outside it, or write the value out',
  },
  YAML_TOO_DEEP: {
    code: 'TG1001',
    severity: 'error',
    message: 'this value nests more than {max} levels deep',
    hint: 'no tool needs this much nesting: flatten the value',
  },
  YAML_WARNING: { code: 'TG1002', severity: 'warning', message: '{reason} ({yamlCode})' },
  FILE_UNREADABLE: { code: 'TG1003', severity: 'error', message: 'cannot read the file: {reason}' },
  NOT_A_TOOL: {
    code: 'TG1004',
    severity: 'error',
    message: 'this YAML is not a tool: it has no name, description or implementation',
    hint: "not every YAML under the config dir must be a tool: add it to exclude in toolgen.config.yaml (exclude: ['{path}'])",
  },
  TOOLS_LIST: {
    code: 'TG1007',
    severity: 'error',
    message: 'this file holds a list of {count} {tools}, and in toolgen each tool lives in a YAML file of its own',
    hint: 'move each entry of tools into its own file (name, description, implementation at the top), or run npx toolgen migrate SRC DEST, which splits the list',
  },
  CONFIG_FILE: {
    code: 'TG1005',
    severity: 'error',
    message: '{problem}',
    hint: 'toolgen.config.yaml takes configDir, outDir, templatesDir, include, exclude, mcpServers and adapters',
  },
  CONFIG_ADAPTER: {
    code: 'TG1005',
    severity: 'error',
    message: '{problem}',
    hint: 'adapters lists the agent frameworks toolgen writes the tools for: {frameworks}',
  },
  CONFIG_MCP_SERVER: {
    code: 'TG1005',
    severity: 'error',
    message: '{problem}',
    hint: 'a server under mcpServers takes command, args, env and cwd (stdio), or url and headers (Streamable HTTP)',
  },
  CONFIG_API: {
    code: 'TG1017',
    severity: 'error',
    message: '{problem}',
    hint: 'an API under apis takes openapi (its OpenAPI document: a path relative to toolgen.config.yaml, or an http(s) URL), baseUrl and headers',
  },
  LOCK_INVALID: {
    code: 'TG1008',
    severity: 'error',
    message: 'toolgen.mcp-lock.json cannot be read: {problem}',
    hint: 'npx toolgen mcp pull writes the lock: run it again, or undo the edit',
  },
  API_LOCK_INVALID: {
    code: 'TG1008',
    severity: 'error',
    message: 'toolgen.api-lock.json cannot be read: {problem}',
    hint: 'npx toolgen api pull writes the lock: run it again, or undo the edit',
  },
  API_LOCK_HASH_MISMATCH: {
    code: 'TG1009',
    severity: 'error',
    message: "the pin of '{tool}' does not match its hash: the lock was edited by hand",
    hint: 'npx toolgen api pull writes the lock: run it again to pin {api} afresh, or undo the edit',
  },
  API_NOT_PULLED: {
    code: 'TG1010',
    severity: 'error',
    message: "API '{api}' is declared under apis, and toolgen.api-lock.json does not pin its operations",
    hint: 'run npx toolgen api pull {api}, and commit toolgen.api-lock.json: builds check steps against the lock, never the document',
  },
  API_NOT_DECLARED: {
    code: 'TG1011',
    severity: 'warning',
    message:
      "API '{api}' is pinned in toolgen.api-lock.json and no longer declared under apis, so its operations cannot be called",
    hint: 'the next npx toolgen api pull drops its pins; to call its operations, declare it under apis again',
  },
  LOCK_HASH_MISMATCH: {
    code: 'TG1009',
    severity: 'error',
    message: "the pin of '{tool}' does not match its hash: the lock was edited by hand",
    hint: PULL_AGAIN,
  },
  SERVER_NOT_PULLED: {
    code: 'TG1010',
    severity: 'error',
    message: "server '{server}' is declared under mcpServers, and toolgen.mcp-lock.json does not pin its tools",
    hint: 'run npx toolgen mcp pull {server}, and commit toolgen.mcp-lock.json: builds check steps against the lock, never the server',
  },
  SERVER_NOT_DECLARED: {
    code: 'TG1011',
    severity: 'warning',
    message:
      "server '{server}' is pinned in toolgen.mcp-lock.json and no longer declared under mcpServers, so its tools cannot be called",
    hint: 'the next npx toolgen mcp pull drops its pins; to call its tools, declare it under mcpServers again',
  },
  PIN_TOO_DEEP: {
    code: 'TG1012',
    severity: 'error',
    message: "the pin of '{tool}' nests its {field} more than {limit} levels deep",
    hint: 'toolgen pins schemas at most {limit} levels deep (npx toolgen mcp pull refuses deeper ones): ask for a flatter schema, or remove the server from mcpServers',
  },
  REMOTE_SCHEMA_INVALID: {
    code: 'TG1013',
    severity: 'error',
    message: "the {field} pinned for '{tool}' is not a schema toolgen can compile: {reason}",
    hint: 'every call of the tool is checked against it, so none could run: ask for the schema to be fixed and pull again, or remove the server from mcpServers',
  },
  PINNED_NAME_CONTROL: {
    code: 'TG1014',
    severity: 'error',
    message: "the pin of '{tool}' names {what} '{name}', which holds a control character or a bidirectional override",
    hint: 'names become identifiers, types and messages, and such a character would drive a terminal or disguise code: ask for the name to be changed and pull again, or remove the server from mcpServers',
  },
  MCP_CLIENT_NOT_A_DEPENDENCY: {
    code: 'TG1015',
    severity: 'warning',
    message:
      "the lock pins MCP servers, and {file} does not list '{package}' in dependencies: the generated index imports it, so the app fails in production (npm install --omit=dev) with Cannot find package '{package}'",
    hint: 'npm install {package}',
  },
  GENERATED_SERVER_TYPES: {
    code: 'TG1016',
    severity: 'error',
    message: 'this generated module does not type-check: {detail}',
    hint: "toolgen wrote it from the lock, and should not have: please report it, with toolgen.mcp-lock.json; meanwhile remove the server from mcpServers, or use the tool under another server's name",
  },
  TEMPLATE_FILE: {
    code: 'TG1006',
    severity: 'error',
    message: 'this template {problem}',
    hint: "fix it in your templates dir (--templates-dir), or delete the file to use toolgen's own",
  },
  SCHEMA_VIOLATION: { code: 'TG1101', severity: 'error', message: '{where} {reason}' },
  SCHEMA_STUB_SHAPE: {
    code: 'TG1101',
    severity: 'error',
    message: "{where} must have exactly one of 'output', 'error' or 'sequence'",
  },
  SCHEMA_UNKNOWN_FIELD: {
    code: 'TG1102',
    severity: 'error',
    message: "unknown field '{field}' in {where}",
    hint: 'allowed here: {allowed}',
  },
  SCHEMA_OLD_FIELD: {
    code: 'TG1102',
    severity: 'error',
    message: "unknown field '{field}' in {where}",
    hint: "'{field}' is the original format's; in toolgen: {replacement}. npx toolgen migrate SRC DEST converts whole files",
  },
  SUCCESS_WHEN_NOT_CALL: {
    code: 'TG1102',
    severity: 'error',
    message: "'success_when' is only for a step that calls a tool, and {where} does not",
    hint: 'a parallel block, loop, choice or wait step makes no call of its own to judge: put success_when on a step inside it that calls a tool',
  },
  SCHEMA_OLD_FIELD_NO_EQUIVALENT: {
    code: 'TG1102',
    severity: 'error',
    message: "unknown field '{field}' in {where}",
    hint: "'{field}' is from the original format, and toolgen has no equivalent; npx toolgen migrate SRC DEST converts whole files and keeps such fields as comments",
  },
  SCHEMA_MISSING_FIELD: {
    code: 'TG1103',
    severity: 'error',
    message: "{where} is missing the required field '{field}'",
  },
  SCHEMA_WRONG_TYPE: { code: 'TG1104', severity: 'error', message: '{where} must be {type}' },
  EMPTY_TOOL_FILE: {
    code: 'TG1104',
    severity: 'error',
    message: 'this file holds no tool: it is empty, or only comments or null',
    hint: 'write the tool here (name, description, parameters, implementation), or delete the file to remove its tool',
  },
  SCHEMA_YES_NO: {
    code: 'TG1104',
    severity: 'error',
    message: "{where} must be a boolean, and '{value}' is text in YAML 1.2",
    hint: 'write true or false',
  },
  SCHEMA_BAD_VALUE: { code: 'TG1105', severity: 'error', message: '{where} must be one of {allowed}' },
  SCHEMA_OLD_IMPLEMENTATION: {
    code: 'TG1105',
    severity: 'error',
    message: '{where} must be one of {allowed}',
    hint: "'{value}' is an implementation type of the original format: write a TypeScript handler (type: function, module, export), or run npx toolgen migrate SRC DEST, which writes a stub",
  },
  SCHEMA_PATTERN: { code: 'TG1105', severity: 'error', message: '{where} must match {pattern}' },
  SCHEMA_NAME_PATTERN: {
    code: 'TG1105',
    severity: 'error',
    message: '{where} must match {pattern}',
    hint: 'use letters, digits and underscores, starting with a letter or underscore',
  },
  SCHEMA_ID_PATTERN: {
    code: 'TG1105',
    severity: 'error',
    message: '{where} must match {pattern}',
    hint: 'use letters, digits, underscores and hyphens, starting with a letter or underscore',
  },
  // Catalogue of tools
  DUPLICATE_TOOL: {
    code: 'TG2001',
    severity: 'error',
    message: "tool name '{name}' is already used by {where}",
    hint: 'tool names must be unique across the config dir; rename one of them',
  },
  UNKNOWN_TOOL: { code: 'TG2002', severity: 'error', message: "no tool named '{name}'", hint: NAME_FIELD },
  UNKNOWN_TOOL_USES: {
    code: 'TG2002',
    severity: 'error',
    message: "no tool named '{name}' (and {more} more {uses} of it)",
    hint: `${NAME_FIELD}; the other {uses}: {places}`,
  },
  HANDLER_MODULE_MISSING: {
    code: 'TG2003',
    severity: 'error',
    message: "module '{module}' does not exist",
    hint: 'the path is relative to this YAML file',
  },
  HANDLER_EXPORT_MISSING: {
    code: 'TG2004',
    severity: 'error',
    message: "'{file}' does not export '{export}'",
    hint: 'it exports: {exports}',
  },
  HANDLER_EXPORTS_NOTHING: {
    code: 'TG2004',
    severity: 'error',
    message: "'{file}' does not export '{export}'",
    hint: 'it exports nothing',
  },
  FILE_NAME_CLASH: {
    code: 'TG2005',
    severity: 'error',
    message: "tools '{first}' and '{second}' would both generate '{file}'",
    hint: NAME_CLASH,
  },
  IDENTIFIER_CLASH: {
    code: 'TG2005',
    severity: 'error',
    message: "tools '{first}' and '{second}' would both generate the identifier '{identifier}'",
    hint: NAME_CLASH,
  },
  REMOTE_IDENTIFIER_CLASH: {
    code: 'TG2005',
    severity: 'error',
    message:
      "tool '{local}' and the tool '{remote}' of an MCP server would both generate the identifier '{identifier}'",
    hint: "rename '{local}': the other is named by its server",
  },
  SERVER_FILE_CLASH: {
    code: 'TG2005',
    severity: 'error',
    message: "servers '{first}' and '{second}' would both generate '{file}'",
    hint: 'rename one of them under mcpServers so their names differ in letters or digits',
  },
  API_FILE_CLASH: {
    code: 'TG2005',
    severity: 'error',
    message: "APIs '{first}' and '{second}' would both generate '{file}'",
    hint: 'rename one of them under apis so their names differ in letters or digits',
  },
  RECURSIVE_COMPOSITE: {
    code: 'TG2006',
    severity: 'error',
    message: "'{tool}' calls itself through {cycle}",
    hint: RECURSION,
  },
  SELF_CALLING_COMPOSITE: { code: 'TG2006', severity: 'error', message: "'{tool}' calls itself", hint: RECURSION },
  UNKNOWN_NAME: { code: 'TG2007', severity: 'error', message: "no tool named '{name}' under the config dir" },
  HANDLER_INPUT_TYPE: {
    code: 'TG2009',
    severity: 'error',
    message: "the handler '{export}' ({handler}) does not take what '{tool}' receives: {detail}",
    hint: "it is called with the parameters the YAML declares ({type} in the generated module): change the handler's parameter type at {handler}, or the parameters",
  },
  HANDLER_OUTPUT_TYPE: {
    code: 'TG2009',
    severity: 'error',
    message: "the handler '{export}' ({handler}) does not return what '{tool}' declares: {detail}",
    hint: "its result must fit the returns the YAML declares ({type} in the generated module): change the handler's return type at {handler}, or returns",
  },
  UNKNOWN_SERVER: {
    code: 'TG2010',
    severity: 'error',
    message: "no MCP server named '{server}' (in '{name}')",
    hint: SERVER_NAMES,
  },
  UNKNOWN_SERVER_USES: {
    code: 'TG2010',
    severity: 'error',
    message: "no MCP server named '{server}' (in '{name}', and {more} more {uses} of it)",
    hint: `${SERVER_NAMES}; the other {uses}: {places}`,
  },
  UNKNOWN_SERVER_OR_API: {
    code: 'TG2010',
    severity: 'error',
    message: "no MCP server or API named '{server}' (in '{name}')",
    hint: SERVER_OR_API_NAMES,
  },
  UNKNOWN_SERVER_OR_API_USES: {
    code: 'TG2010',
    severity: 'error',
    message: "no MCP server or API named '{server}' (in '{name}', and {more} more {uses} of it)",
    hint: `${SERVER_OR_API_NAMES}; the other {uses}: {places}`,
  },
  UNKNOWN_OPERATION: {
    code: 'TG2011',
    severity: 'error',
    message: "API '{server}' has no operation named '{tool}'",
    hint: 'its operations, as toolgen.api-lock.json pins them: {tools}. If its document has it now, run npx toolgen api pull {server}',
  },
  UNKNOWN_OPERATION_USES: {
    code: 'TG2011',
    severity: 'error',
    message: "API '{server}' has no operation named '{tool}' (and {more} more {uses} of it)",
    hint: 'its operations, as toolgen.api-lock.json pins them: {tools}; the other {uses}: {places}',
  },
  UNKNOWN_REMOTE_TOOL: {
    code: 'TG2011',
    severity: 'error',
    message: "server '{server}' has no tool named '{tool}'",
    hint: 'its tools, as toolgen.mcp-lock.json pins them: {tools}. If the server has it now, run npx toolgen mcp pull {server}',
  },
  UNKNOWN_REMOTE_TOOL_USES: {
    code: 'TG2011',
    severity: 'error',
    message: "server '{server}' has no tool named '{tool}' (and {more} more {uses} of it)",
    hint: 'its tools, as toolgen.mcp-lock.json pins them: {tools}; the other {uses}: {places}',
  },
  // The same problems found by `toolgen mcp diff`, whose build reads what the server lists now.
  UNKNOWN_LIVE_TOOL: {
    code: 'TG2011',
    severity: 'error',
    message: "server '{server}' has no tool named '{tool}'",
    hint: 'its tools, as the server lists them now: {tools}',
  },
  UNKNOWN_LIVE_TOOL_USES: {
    code: 'TG2011',
    severity: 'error',
    message: "server '{server}' has no tool named '{tool}' (and {more} more {uses} of it)",
    hint: 'its tools, as the server lists them now: {tools}; the other {uses}: {places}',
  },
  // Step graph
  DUPLICATE_STEP_ID: {
    code: 'TG3001',
    severity: 'error',
    message: "step id '{id}' is used by an earlier step",
    hint: 'step ids must be unique within a composite, nested steps included',
  },
  DUPLICATE_BRANCH_ID: {
    code: 'TG3001',
    severity: 'error',
    message: "branch id '{id}' is used by an earlier branch of '{block}'",
  },
  UNKNOWN_NEXT: {
    code: 'TG3002',
    severity: 'error',
    message: "{field} '{name}' names no step",
    hint: 'steps here: {steps}, or end',
  },
  NEXT_NAMES_TOOL: {
    code: 'TG3002',
    severity: 'error',
    message: "no step has id '{name}'; the step calling tool '{name}' has id {ids}",
    hint: NEXT_IS_A_STEP,
  },
  NEXT_NAMES_TOOL_OF_STEPS: {
    code: 'TG3002',
    severity: 'error',
    message: "no step has id '{name}'; the steps calling tool '{name}' have ids {ids}",
    hint: NEXT_IS_A_STEP,
  },
  AMBIGUOUS_NEXT: {
    code: 'TG3003',
    severity: 'error',
    message: "{field} '{name}' could mean any of the steps {ids} (all call '{name}')",
    hint: 'give those steps an explicit id and name it in next',
  },
  UNREACHABLE_STEP: {
    code: 'TG3004',
    severity: 'error',
    message: "step '{step}' can never run: no step leads to it",
    hint: 'point a next at it, or remove it',
  },
  ENDLESS_LOOP: {
    code: 'TG3005',
    severity: 'error',
    message: 'the steps {cycle} loop with no way out: no path from them reaches the end',
    hint: 'send one of these steps to a step outside the loop, or to end',
  },
  EMPTY_COMPOSITE: { code: 'TG3006', severity: 'error', message: 'a composite tool needs at least one step' },
  USELESS_NEXT: {
    code: 'TG3007',
    severity: 'warning',
    message: 'this next is never followed: the chain stops on failure',
  },
  USELESS_NEXT_AFTER_RETRIES: {
    code: 'TG3007',
    severity: 'warning',
    message: 'this next is never followed: after the retries the chain stops unless continue_on_max_retries is true',
  },
  USELESS_RETRY_SETTING: {
    code: 'TG3008',
    severity: 'warning',
    message: "{setting} does nothing here: this step's on_failure action is {action}",
    hint: 'set action: retry, or remove it',
  },
  BLOCK_RETRY: {
    code: 'TG3009',
    severity: 'error',
    message: 'a {block} cannot retry as a whole',
    hint: 'retry the steps inside it, or use stop or continue here',
  },
  WAIT_RETRY: {
    code: 'TG3009',
    severity: 'error',
    message: 'a wait step cannot retry: its signal comes once',
    hint: 'use stop, or continue to a step that handles the timeout',
  },
  DAG_NEXT: {
    code: 'TG3010',
    severity: 'error',
    message: 'next has no meaning in a DAG: a step runs when the steps it depends on have succeeded',
    hint: 'use depends_on',
  },
  WAIT_PLACEMENT: {
    code: 'TG3020',
    severity: 'error',
    message: 'a wait step runs only among the top-level steps of a composite in sequence mode, not {where}',
    hint: 'a run that waits must have nothing else in flight: move the wait to the top level',
  },
  DEPENDENCY_CYCLE: {
    code: 'TG3011',
    severity: 'error',
    message: 'the steps depend on each other in a cycle: {cycle}',
    hint: 'a step can only use what steps before it produced',
  },
  CHOICE_IN_DAG: {
    code: 'TG3012',
    severity: 'error',
    message:
      'a choice step cannot run in a DAG: it picks the next step, and in a DAG a step runs when the steps it depends on have succeeded',
    hint: 'use when on the steps that depend on it, or drop mode: dag and depends_on',
  },
  RETRY_KIND_MISSPELT: {
    code: 'TG3013',
    severity: 'warning',
    message: "'{entry}' is not a failure kind, so it matches only errors whose code is '{entry}'",
    hint: 'failure kinds: {kinds}',
  },
  // Data flow and templates
  UNDEFINED_VARIABLE: {
    code: 'TG4001',
    severity: 'error',
    message: 'state.{name} is never defined',
    hint: STATE_HOLDS,
  },
  VARIABLE_NOT_YET_DEFINED: {
    code: 'TG4001',
    severity: 'error',
    message: 'state.{name} is not defined on any path that reaches this step',
    hint: 'it is set by a step that has not succeeded before this one',
  },
  STEP_NOT_YET_SUCCEEDED: {
    code: 'TG4001',
    severity: 'error',
    message: "step '{step}' has not succeeded on any path that reaches this step",
  },
  MAYBE_UNDEFINED_VARIABLE: {
    code: 'TG4002',
    severity: 'warning',
    message: 'state.{name} is defined on some paths that reach this step, not all',
    hint: 'this step fails with an unresolved reference on the other paths',
  },
  OPTIONAL_PARAMETER_UNSET: {
    code: 'TG4002',
    severity: 'warning',
    message: 'state.{name} is an optional parameter with no default: it is missing when the caller leaves it out',
    hint: 'give the parameter a default, or make it required',
  },
  STEP_MAYBE_SUCCEEDED: {
    code: 'TG4002',
    severity: 'warning',
    message: "step '{step}' has succeeded on some paths that reach this step, not all",
  },
  TEMPLATE_SYNTAX: {
    code: 'TG4003',
    severity: 'error',
    message: '{problem}',
    hint: 'a template is << state.name >>, << steps.<id>.<field> >>, << chain_id >>, << chain_name >> or << started_at >>; \\<< writes a literal <<',
  },
  SEED_TEMPLATE: {
    code: 'TG4004',
    severity: 'warning',
    message: "'{text}' is passed to the tool as literal text",
    hint: 'toolgen templates are written {replacement}',
  },
  RESERVED_NAME: {
    code: 'TG4005',
    severity: 'error',
    message: "'{name}' is reserved and cannot name a state variable",
  },
  RESERVED_PARAMETER_NAME: {
    code: 'TG4005',
    severity: 'error',
    message: "'{name}' is reserved and cannot name a parameter",
    hint: 'reserved: {reserved}',
  },
  PROTOTYPE_NAME: {
    code: 'TG4005',
    severity: 'error',
    message: "'{name}' cannot name {what}: JavaScript gives it a meaning of its own on every object",
    hint: '__proto__, constructor and prototype never name parameters, state variables, loop variables or steps: choose another name',
  },
  RESERVED_STEP_ID: {
    code: 'TG4005',
    severity: 'error',
    message: "'end' cannot be a step id: next: end ends the chain",
  },
  UNKNOWN_STEP_REFERENCE: { code: 'TG4006', severity: 'error', message: "no step has id '{step}'" },
  UNKNOWN_OUTPUT_FIELD: {
    code: 'TG4007',
    severity: 'error',
    message: "the output of '{tool}'{path} has no field '{field}'",
    hint: 'declared fields: {fields}',
  },
  UNKNOWN_BLOCK_OUTPUT_FIELD: {
    code: 'TG4007',
    severity: 'error',
    message: "the output of step '{step}'{path} has no field '{field}'",
    hint: 'declared fields: {fields}',
  },
  UNKNOWN_STATE_FIELD: {
    code: 'TG4007',
    severity: 'error',
    message: "state.{path} has no field '{field}'",
    hint: 'declared fields: {fields}',
  },
  NO_FIELDS_TO_READ: {
    code: 'TG4007',
    severity: 'error',
    message: '{what} is {types}, so it has no {field}',
    hint: 'read {what} itself, or a field its schema declares',
  },
  UNKNOWN_RESPONSE_FIELD: {
    code: 'TG4007',
    severity: 'error',
    message: "responses.{step} has no field '{field}'",
    hint: 'a response has status (an integer) and headers (text, by lower-case name): responses.{step}.status, responses.{step}.headers.location',
  },
  RESPONSE_OF_NON_API_STEP: {
    code: 'TG4011',
    severity: 'error',
    message: "responses.{step} is never set: step '{step}' {calls}",
    hint: "only a step calling an API operation (tool: <api>/<operation>) has a response; another step's output is steps.{step}",
  },
  RESPONSES_IN_TEMPLATE: {
    code: 'TG4011',
    severity: 'error',
    message: "'<< {text} >>' reads nothing: responses is a root of expressions, not of templates",
    hint: "in a template, an API step's response is << steps.{step}.status >> and << steps.{step}.headers.<name> >>",
  },
  RESPONSE_HEADER_CASE: {
    code: 'TG4012',
    severity: 'error',
    message: "'{written}' is never among the headers of responses.{step}: their names are lower case",
    hint: 'read {read}',
  },
  STEP_HEADER_CASE: {
    code: 'TG4012',
    severity: 'error',
    message: "'{written}' is never among the headers of step '{step}': their names are lower case",
    hint: 'header names are read in lower case: write `steps.{step}.{read}`',
  },
  STEP_RESPONSE_NO_FIELDS: {
    code: 'TG4007',
    severity: 'error',
    message: "{what} of step '{step}' is {type}, so it has no {field}",
    hint: "an API step's response is its status (an integer) and its headers (a string each, by lower-case name): << steps.{step}.status >>, << steps.{step}.headers.location >>",
  },
  RESPONSE_HEADER_DASH: {
    code: 'TG4012',
    severity: 'error',
    message: "'{written}' is read as a subtraction: in JSONata a name with a dash is written in backticks",
    hint: 'read {read}',
  },
  API_OUTPUT_UNKNOWN: {
    code: 'TG4010',
    severity: 'warning',
    message:
      "'{path}' reads the output of '{tool}', whose shape is unknown: its document gives no JSON schema for a success response",
    hint: 'such an output is the JSON of the body when that parses, else its text: what it holds is known only when the operation is called',
  },
  REMOTE_OUTPUT_UNKNOWN: {
    code: 'TG4010',
    severity: 'warning',
    message: "'{path}' reads the output of '{tool}', whose shape is unknown: its server declares no outputSchema",
    hint: 'such an output is the JSON of its text when that parses, else the text: what it holds is known only when the tool runs',
  },
  EXPRESSION_SYNTAX: {
    code: 'TG4008',
    severity: 'error',
    message: 'this JSONata expression does not parse: {reason}',
    hint: 'for example: state.balance < 100, or $sum(state.items.price)',
  },
  EXPRESSION_TOO_DEEP: {
    code: 'TG4008',
    severity: 'error',
    message: 'this expression nests more than {max} levels deep',
    hint: 'no condition needs this much nesting: flatten it, or compute a part of it in a transform',
  },
  TEMPLATE_AS_EXPRESSION: {
    code: 'TG4008',
    severity: 'error',
    message: "'{text}' is a template, and this takes a JSONata expression",
    hint: 'write it without the brackets: {expression}',
  },
  BARE_NAME_IN_EXPRESSION: {
    code: 'TG4009',
    severity: 'error',
    message: "'{name}' reads nothing: an expression sees only state, steps, responses and the built-ins",
    hint: 'read a state variable as state.{name}; a bare name is always absent, so a condition on it never holds',
  },
  // Tool signatures
  UNKNOWN_INPUT: {
    code: 'TG5001',
    severity: 'error',
    message: "'{tool}' has no parameter '{name}'",
    hint: 'its parameters: {parameters}',
  },
  UNKNOWN_INPUT_NO_PARAMETERS: {
    code: 'TG5001',
    severity: 'error',
    message: "'{tool}' has no parameter '{name}'",
    hint: "'{tool}' takes no parameters",
  },
  UNKNOWN_INPUT_FIELD: {
    code: 'TG5001',
    severity: 'error',
    message: "'{name}' of '{tool}' has no field '{field}'",
    hint: 'its fields: {fields}',
  },
  MISSING_INPUT: {
    code: 'TG5002',
    severity: 'error',
    message: "'{tool}' requires {names}, and this step does not pass it",
  },
  MISSING_INPUTS: {
    code: 'TG5002',
    severity: 'error',
    message: "'{tool}' requires {names}, and this step does not pass them",
  },
  INPUT_TYPE: {
    code: 'TG5003',
    severity: 'error',
    message: "{value} is not a valid '{name}' for '{tool}': {problems}",
  },
  INPUT_SHAPE: { code: 'TG5003', severity: 'error', message: "'{name}' of '{tool}' must be {types}, not {given}" },
  INPUT_TEXT_WITH_TEMPLATES: {
    code: 'TG5003',
    severity: 'error',
    message: "'{name}' of '{tool}' must be {types}, and text with templates inside is always a string",
    hint: 'to pass a value with its type, make the value exactly one template: << state.x >>',
  },
  INPUT_TEMPLATE_TYPE: {
    code: 'TG5003',
    severity: 'error',
    message: "'{name}' of '{tool}' must be {types}, but << {reference} >> is {given}",
  },
  INPUT_ENUM_REFUSED: {
    code: 'TG5003',
    severity: 'error',
    message: "'{name}' of '{tool}' does not accept {refused}, which << {reference} >> may hold",
    hint: "the value comes from a tool's returns with an enum: make the enums agree, or map it through a transform",
  },
  UNKNOWN_OUTPUT: {
    code: 'TG5004',
    severity: 'error',
    message: "'{tool}' returns no '{path}'",
    hint: 'its returns declare: {fields}',
  },
  UNKNOWN_BLOCK_OUTPUT: {
    code: 'TG5004',
    severity: 'error',
    message: "the {block} '{step}' returns no '{path}'",
    hint: 'its returns declare: {fields}',
  },
  NO_OUTPUT_FIELDS_TO_MAP: {
    code: 'TG5004',
    severity: 'error',
    message: "'{source}' reads into {what}, which is {types}, so it has no {field}",
    hint: 'map {what} itself, or a field its schema declares',
  },
  MAP_OUTPUT_NOT_A_PATH: { code: 'TG5004', severity: 'error', message: "'{source}' is not a path: {reason}" },
  EXAMPLE_INPUT: {
    code: 'TG5006',
    severity: 'error',
    message: "this example's input is not valid input for '{tool}': {problems}",
    hint: 'invalid input belongs in error_scenarios',
  },
  NO_EXAMPLES: {
    code: 'TG5007',
    severity: 'warning',
    message: "'{tool}' has no examples or error_scenarios, so no test is generated for it",
    hint: 'add an example: description, input and expected_output',
  },
  UNKNOWN_STUB: { code: 'TG5008', severity: 'error', message: "cannot stub '{name}': no tool has that name" },
  PARAMETER_DEFAULT_INVALID: {
    code: 'TG5010',
    severity: 'error',
    message: "the default {value} is not a valid '{name}': {problems}",
    hint: 'a default must satisfy its own parameter: the runtime validates it like any input',
  },
  PATTERN_INVALID: {
    code: 'TG5011',
    severity: 'error',
    message: "pattern '{pattern}' does not compile as the runtime compiles it (a Unicode regular expression): {reason}",
    hint: 'with the u flag an escape must mean something: write - for a hyphen outside a character class, not \\-',
  },
  PATTERN_NOT_LINEAR: {
    code: 'TG5011',
    severity: 'error',
    message: "pattern '{pattern}' cannot run on the runtime's linear-time engine (RE2): {reason}",
    hint: 'patterns run in time linear in the input, so lookarounds and backreferences are not available: match the text with a plainer pattern',
  },
  EXPRESSION_REGEX_NOT_LINEAR: {
    code: 'TG5011',
    severity: 'error',
    message: "the regular expression /{pattern}/ cannot run on the runtime's linear-time engine (RE2): {reason}",
    hint: 'regex literals in expressions run in time linear in the input, so lookarounds and backreferences are not available: match the text with a plainer regular expression',
  },
  REDACT_UNKNOWN_FIELD: {
    code: 'TG5012',
    severity: 'warning',
    message: "redact_fields names '{field}', and no parameter or returned field has that name at any depth",
    hint: 'fields here: {fields}',
  },
  EXPECTED_OUTPUT_NEVER_SET: {
    code: 'TG5013',
    severity: 'error',
    message: "expected_output expects '{key}', and '{tool}' never has it in {what}",
    hint: 'it can have: {fields}',
  },
  STUB_OUTPUT_INVALID: {
    code: 'TG5014',
    severity: 'error',
    message: "this stub's output is not what '{tool}' returns: {problems}",
    hint: "the runtime checks a stub's output against the tool's returns, so the step would fail",
  },
  EXAMPLE_MISSING_PERMISSION: {
    code: 'TG5015',
    severity: 'error',
    message: "this example's context does not grant {permissions}, which running '{tool}' requires",
    hint: 'add it to permissions, or make this an error_scenario expecting kind: policy',
  },
  COMPOSITE_RETURNS_NEVER_SET: {
    code: 'TG5023',
    severity: 'error',
    message: "'{tool}' declares it returns '{field}', and its final state never has it",
    hint: `${RETURNS_IS_STATE}; here: {fields}. Map an output to '{field}', or remove it from returns`,
  },
  COMPOSITE_RETURNS_SOMETIMES_SET: {
    code: 'TG5023',
    severity: 'error',
    message: "'{tool}' declares '{field}' required, and its final state has it on some paths only",
    hint: "set '{field}' on every path to the end, or leave it out of required",
  },
  COMPOSITE_RETURNS_TYPE: {
    code: 'TG5023',
    severity: 'error',
    message: "'{tool}' declares '{field}' as {wanted}, and its final state holds {given}",
  },
  COMPOSITE_RETURNS_CLOSED: {
    code: 'TG5023',
    severity: 'error',
    message: "'{tool}' declares no other fields (additionalProperties: false), and its final state also holds {names}",
    hint: RETURNS_IS_STATE,
  },
  COMPOSITE_RETURNS_NOT_OBJECT: {
    code: 'TG5023',
    severity: 'error',
    message: "'{tool}' declares it returns {types}, and a composite returns its final state, an object",
    hint: `${RETURNS_IS_STATE}; here: {fields}`,
  },
  API_SCHEMA_SKIPPED: {
    code: 'TG5024',
    severity: 'warning',
    message: "the build's checks of '{tool}' skip {features} in its pinned schemas ({parts})",
    hint: 'a part the checks skip is taken as any value, never an error; the runtime still checks the whole schema when the operation is called',
  },
  REMOTE_SCHEMA_SKIPPED: {
    code: 'TG5024',
    severity: 'warning',
    message: "the build's checks of '{tool}' skip {features} in its pinned schemas ({parts})",
    hint: 'a part the checks skip is taken as any value, never an error; the server, and the runtime for structured output, still check it when the tool is called',
  },
  STUB_RESPONSE_NOT_API: {
    code: 'TG5025',
    severity: 'error',
    message: "this stub gives a response (status, headers), and '{tool}' is not an API operation",
    hint: "only an API operation's step has a status and headers: give this stub its output alone",
  },
  STUB_RESPONSE_WITH_ERROR: {
    code: 'TG5025',
    severity: 'error',
    message: 'this stub fails with an error, so it gives no response (status, headers)',
    hint: "a response goes beside an output: a stub's error is a failure, whatever its status",
  },
  STUB_RESPONSE_BESIDE_SEQUENCE: {
    code: 'TG5025',
    severity: 'error',
    message: 'this stub answers with its sequence, so a response beside it answers nothing',
    hint: 'give each item of the sequence its own response, beside its output',
  },
  STUB_RESPONSE_STATUS: {
    code: 'TG5025',
    severity: 'error',
    message: "status {status} is not one of the success statuses of '{tool}' ({statuses})",
    hint: "a stub's output is the body of a success response; stub a failure with error",
  },
  DUPLICATE_PARAMETER: {
    code: 'TG5016',
    severity: 'error',
    message: "'{name}' is declared twice in {where}",
    hint: 'each parameter, and each field of an object, needs a name of its own',
  },
  EMPTY_CHOICE: {
    code: 'TG5017',
    severity: 'error',
    message: 'an empty {keyword} allows no value at all',
    hint: 'list what it may be, or leave {keyword} out',
  },
  NOT_A_JSON_NUMBER: {
    code: 'TG5018',
    severity: 'error',
    message: '{value} is not a JSON number: JSON and JSON Schema have no infinities and no NaN',
    hint: 'write the finite bound you mean, or leave the value out',
  },
  COMPOSITE_EXPECTED_OUTPUT: {
    code: 'TG5019',
    severity: 'error',
    message: "a composite's expected_output is matched against its final state, an object, and this is {given}",
    hint: 'write the state fields it expects, as a mapping of field to value',
  },
  DUPLICATE_ENUM_VALUE: {
    code: 'TG5021',
    severity: 'error',
    message: '{value} is listed twice in this enum',
    hint: 'JSON Schema requires the values of an enum to differ: remove one',
  },
  RETURNS_SCHEMA_INVALID: {
    code: 'TG5022',
    severity: 'error',
    message: 'returns is not a valid JSON Schema: {reason}',
    hint: 'the runtime checks every output against returns, and cannot with this schema',
  },
  WAIT_PAYLOAD_SCHEMA: {
    code: 'TG5020',
    severity: 'error',
    message: "the payload schema of signal '{signal}' is not a valid JSON Schema: {reason}",
  },
  LOOP_OVER_NOT_LIST: {
    code: 'TG5009',
    severity: 'error',
    message: 'a loop goes over a list, and << {reference} >> is {types}',
    hint: 'point over at a list in state',
  },
} as const satisfies Record<string, DiagnosticTemplate>;

export type DiagnosticId = keyof typeof CATALOGUE;
