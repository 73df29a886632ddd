/**
 * Where a tool's parameters were in the later format, which wrapped service methods: `tool_params`
 * (what the tool took), `method_params` (what its method took), or nowhere, inherited from the
 * method at run time. The original's tool passed any field on to the method (its parameter model
 * allowed extra fields), so a method parameter missing from `tool_params` was still taken; toolgen
 * checks input against the parameters, so those become parameters too, and the report says so.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion } from './conversion.js';
import { migrateParameters } from './parameters.js';
import { referenceFor } from './templates.js';

/** The fields that held parameters, converted here rather than kept as comments. */
export const PARAMETER_FIELDS = ['parameters', 'tool_params', 'method_params'];

/**
 * The tool's parameters, from whichever field held them.
 *
 * @example toolParameters({ tool_params: [{ name: 'dry_run', type: 'boolean' }], method_params: [{ name: 'title', type: 'string' }] }, conversion) // dry_run and title
 */
export function toolParameters(
  old: Readonly<Record<string, unknown>>,
  conversion: Conversion,
  origins: string[] = [],
): Record<string, unknown>[] {
  const field = old['parameters'] !== undefined || old['tool_params'] === undefined ? 'parameters' : 'tool_params';
  const parameters = migrateParameters(old[field], conversion, { where: field, origins });
  if (field === 'tool_params') conversion.note('renamed', 'tool_params', '→ parameters');
  const method = old['method_params'];
  if (method === undefined) {
    if (old[field] === undefined) inferInherited(old, parameters, conversion);
    return parameters;
  }
  if (field === 'parameters' && old['parameters'] !== undefined) {
    conversion.keep([], 'method_params', method, 'the tool declares its own parameters');
    return parameters;
  }
  const have = new Set(parameters.map((parameter) => String(parameter['name'])));
  const names = (Array.isArray(method) ? method : [])
    .filter(isPlainObject)
    .map((parameter) => String(parameter['name']));
  const missing = new Set(names.filter((name) => !have.has(name)));
  if (missing.size === 0) {
    conversion.keep([], 'method_params', method, "its method's parameters, each repeated in tool_params");
    return parameters;
  }
  parameters.push(
    ...migrateParameters(method, conversion, {
      where: 'method_params',
      first: parameters.length,
      only: missing,
      origins,
    }),
  );
  const them = missing.size === 1 ? 'it' : 'them';
  const source = methodOf(old);
  conversion.note(
    'warning',
    'method_params',
    `${[...missing].join(', ')} ${missing.size === 1 ? 'is' : 'are'} not in tool_params: the original's tool took ${them}` +
      ` anyway and passed ${them} on to its method${source ? ` ${source}` : ''}; added as parameters, so toolgen now checks ${them}`,
  );
  return parameters;
}

/**
 * A tool with no parameters that says it inherits them from a method: the names its request mapping
 * reads become parameters without a type, and a warning says to copy the method's.
 */
function inferInherited(
  old: Readonly<Record<string, unknown>>,
  parameters: Record<string, unknown>[],
  conversion: Conversion,
): void {
  const method = methodOf(old);
  if (method === null) return;
  const implementation = isPlainObject(old['implementation']) ? old['implementation'] : {};
  const names = new Set<string>();
  for (const value of Object.values(implementation))
    if (isPlainObject(value) && isPlainObject(value['request_mapping'])) readNames(value['request_mapping'], names);
  for (const name of names)
    parameters.push({ name, description: `Inherited from ${method} in the original; added by toolgen migrate.` });
  conversion.note(
    'warning',
    'parameters',
    `none: the original inherited them (and its business rules) from the method ${method}, which toolgen cannot read` +
      (names.size > 0
        ? `; added ${[...names].join(', ')} (what its request_mapping reads), optional and without a type: give them the method's`
        : '; write them'),
  );
}

/** The plain names `{{ name }}` templates in a request mapping read (not `session.*` or `context.*`). */
function readNames(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    for (const match of value.matchAll(/\{\{([\s\S]*?)\}\}/g)) {
      const reference = referenceFor(match[1]!);
      const name = reference === null ? null : /^<< ([A-Za-z_]\w*) >>$/.exec(reference)?.[1];
      if (name && !['session', 'context', 'state', 'request_id'].includes(name)) into.add(name);
    }
  } else if (Array.isArray(value)) value.forEach((item) => readNames(item, into));
  else if (isPlainObject(value)) Object.values(value).forEach((item) => readNames(item, into));
}

/** The method a tool wrapped, as the original named it, or null when it names none. */
export function methodOf(old: Readonly<Record<string, unknown>>): string | null {
  const reference = isPlainObject(old['method_reference']) ? old['method_reference'] : null;
  if (reference && typeof reference['method'] === 'string')
    return typeof reference['service'] === 'string' && reference['service'].length > 0
      ? `${reference['service']}.${reference['method']}`
      : reference['method'];
  const metadata = isPlainObject(old['metadata']) ? old['metadata'] : {};
  if (typeof metadata['source_method'] === 'string')
    return typeof metadata['service'] === 'string'
      ? `${metadata['service']}.${metadata['source_method']}`
      : metadata['source_method'];
  return null;
}
