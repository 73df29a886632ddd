/**
 * What each diagnostic code means, in a few words: the table of docs/diagnostics.md is written from
 * this and the catalogue (`node scripts/docs-tables.mjs`), the catalogue giving each code's severity.
 * Every code of the catalogue has its line here (the type says so), and no other.
 */
import type { CATALOGUE } from './catalogue.js';

/** A code some entry of the catalogue has. */
export type DiagnosticCode = (typeof CATALOGUE)[keyof typeof CATALOGUE]['code'];

export const CODE_SUMMARIES: Readonly<Record<DiagnosticCode, string>> = {
  TG1001:
    'YAML syntax (a key given twice in one mapping among it); an alias inside the node it names; a value nested more than 64 levels deep',
  TG1002: 'YAML warning',
  TG1003: 'unreadable file',
  TG1004: 'a YAML under the config dir that is not a tool (exclude it)',
  TG1005: 'a problem in `toolgen.config.yaml`',
  TG1006: 'a template in `--templates-dir` that does not parse or render, at its line and column in the `.hbs`',
  TG1007: 'a file holding a list of tools (`tools:`): each tool lives in its own file (`toolgen migrate` splits it)',
  TG1008:
    'a `toolgen.mcp-lock.json` that cannot be read: not JSON, from a newer toolgen, or not what `mcp pull` writes',
  TG1009: 'a pin in the lock whose `hash` does not match it (edited by hand)',
  TG1010:
    'a server under `mcpServers` or an API under `apis` its lock does not pin (never pulled), at its entry in `toolgen.config.yaml`',
  TG1011: 'a server the lock pins that `mcpServers` no longer declares (its tools cannot be called)',
  TG1012: 'a pin in the lock whose `inputSchema`, `outputSchema` or `annotations` nests more than 64 levels deep',
  TG1013:
    'a pinned `inputSchema` or `outputSchema` ajv cannot compile (a misspelt `type`, a `pattern` that is no regular expression or that the linear-time engine cannot run), at the keyword',
  TG1014:
    'a pinned tool name, or a property name in a pinned schema, that holds a control character or a bidirectional override, at the name in the lock',
  TG1015:
    "the lock pins servers, and the app's package.json (beside `toolgen.config.yaml`) does not list `@modelcontextprotocol/client` in `dependencies`",
  TG1016:
    "`toolgen check` only: a module it generated for other servers (`generated/servers/*.ts`, `generated/mcp-servers.ts`) that does not type-check under `--strict`, at the line in that module (toolgen's mistake: report it)",
  TG1017: 'a problem in `apis` in `toolgen.config.yaml` (see [HTTP APIs](http-apis.md))',
  TG1101: 'schema: violation',
  TG1102: 'schema: unknown field',
  TG1103: 'schema: missing field',
  TG1104: 'schema: wrong type (a file that holds no tool: empty, comments only, `null`)',
  TG1105: 'schema: bad value',
  TG2001: 'duplicate tool name',
  TG2002: 'unknown tool',
  TG2003: 'handler module missing',
  TG2004: 'handler export missing',
  TG2005:
    "two tools map to one file name, or to one identifier (`foo_definition` and `foo`'s `fooDefinition`); a local tool and a remote one to one identifier; two servers to one module",
  TG2006: 'a composite calls itself (with the path)',
  TG2007: 'an unknown name on the command line',
  TG2009:
    "a handler whose TypeScript parameter or return type does not match the YAML (at `export`, naming the handler's `file:line:col`)",
  TG2010: '`<server>/<tool>` naming neither a server under `mcpServers` nor an API under `apis`',
  TG2011: '`<server>/<tool>` naming a tool (or `<api>/<operation>` an operation) the lock does not pin for it',
  TG3001: 'duplicate step id',
  TG3002: "unknown `next` (or choice target, or `default`: `default 's' names no step`, at the default)",
  TG3003: 'ambiguous `next`',
  TG3004: 'unreachable step',
  TG3005: 'a loop with no way out (with its path; a long one shows its first 8 steps and how many more)',
  TG3006: 'a composite with no steps',
  TG3007: 'an `on_failure.next` that is never followed',
  TG3008: 'retry settings on a step that does not retry',
  TG3009: 'a retry on a parallel block, loop or wait step',
  TG3010: 'a `next` in DAG mode',
  TG3011: 'a dependency cycle (with its path)',
  TG3012: 'a choice step in DAG mode',
  TG3013: 'a `retry_on`/`no_retry_on` entry a letter or two from a failure kind (`timout`)',
  TG3020: 'a wait step inside a block, or in DAG mode',
  TG4001: 'a variable or step output defined on no path reaching its use',
  TG4002: 'defined on some paths only',
  TG4003: 'template syntax',
  TG4004: 'a `{{ … }}` template',
  TG4005:
    'a reserved name (`chain_id`, `state`, `steps`, `responses`, …), or `__proto__`, `constructor` or `prototype` naming a parameter, state variable, loop variable, step or branch',
  TG4006: '`steps.x` (or `responses.x`) where no step has id `x`',
  TG4007:
    "a field the tool's `returns` (or the state variable's type) does not declare, a field of `responses.<id>` other than `status` and `headers`, or a path into a value that has no fields (a string, an API step's status or header)",
  TG4008: 'a JSONata expression that does not parse, or nests more than 64 levels deep',
  TG4009: 'a bare name in an expression (`word_count` for `state.word_count`)',
  TG4010: 'a field read of the output of a remote tool whose server declares no `outputSchema` (its shape is unknown)',
  TG4011:
    '`responses.<id>` in an expression where step `<id>` calls no API operation (it has no response), or `responses` in a template (a template reads `steps.<id>.status`)',
  TG4012:
    '`responses.<id>.headers.<name>` or `<< steps.<id>.headers.<name> >>` with upper-case letters (header names are lower case), or a name with a dash outside backticks in an expression (`x-rate` is `x` minus `rate`)',
  TG5001:
    'an input the called tool does not take; a field inside one its schema does not declare, a misspelling of one it does (at the key, with the field meant: `entity_type` for `entityType`)',
  TG5002: 'a missing required input',
  TG5003:
    'an input of the wrong type, a template inside a list or mapping included, or an enum carried through `map_outputs` with a value the parameter refuses',
  TG5004: 'a `map_outputs` source the tool does not return, or a path into a value that has no fields',
  TG5006: 'invalid example input',
  TG5007: 'a function tool with no examples, so no generated test',
  TG5008: 'stub of an unknown tool',
  TG5009: 'a loop over something that is not a list',
  TG5010: 'a parameter `default` its own type or constraints refuse',
  TG5011:
    "a `pattern` that is not a valid Unicode regular expression (`new RegExp(p, 'u')`), or a `pattern` or a regex literal in a JSONata expression that the runtime's linear-time engine (RE2) cannot run: lookarounds, backreferences",
  TG5012: 'a `redact_fields` entry no parameter or returned field is called, at any depth',
  TG5013: 'an `expected_output` key the tool never returns (for a composite: never in its final state)',
  TG5014: "a stub output the stubbed tool's `returns` refuses",
  TG5015: 'an example whose `context` does not grant a permission the tool or a tool it calls requires',
  TG5016: 'a parameter, or a field of an object parameter, declared twice',
  TG5017: 'an empty `enum`, `anyOf` or `oneOf` (it allows no value)',
  TG5018: '`.inf`, `-.inf` or `.nan` in parameters or `returns`: not JSON numbers',
  TG5019: "a composite's `expected_output` that is not a mapping (it is matched against the final state)",
  TG5020: "a wait step's payload schema that is not valid JSON Schema",
  TG5021: 'a value listed twice in an `enum` (JSON Schema refuses it)',
  TG5022: 'a `returns` that is not a valid JSON Schema (a misspelt `type`, a field `required` twice)',
  TG5023:
    "a composite's declared `returns` its final state cannot keep (a field never or only sometimes set, another type, more fields than a closed `returns` allows, not an object)",
  TG5024:
    "parts of a remote tool's pinned schemas the checks skip (`anyOf`, `$ref`, a list of types in an input, …), taken as any value; once per tool a composite uses, at the lock",
  TG5025:
    "a stub's `response` (status, headers) on a tool that is not an API operation, beside an `error` or a `sequence`, or with a status the operation does not list as a success",
};
