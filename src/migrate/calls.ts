/**
 * The tools of one migration, read against each other once each is converted. Example contexts get
 * the permissions a run needs (the tool's own and those of every tool it calls): the original never
 * checked permissions, so its examples left them out. And a step that calls a tool the migration
 * does not define, passes it an input it does not take, or maps an output it does not return is a
 * bug of the original that toolgen reports: the report says so where the step is.
 */
import { isPlainObject } from '../language/json.js';
import { type Conversion, joinPath } from './conversion.js';
import { setBySteps } from './composite-returns.js';
import type { MigratedTool } from './tool.js';

/**
 * Completes every tool's example contexts and explains its calls, given the others. With `tree`
 * (a folder was migrated), a tool the steps call that no file defines is reported too.
 *
 * @example checkTogether([echoTool, echoChainDemo], { tree: true }) // echo_chain_demo's examples now grant tools:execute
 */
export function checkTogether(tools: readonly MigratedTool[], options: { readonly tree: boolean }): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const tool of tools) {
    const policies = requiredPolicies(tool, byName);
    grantPermissions(tool, policies.permissions);
    notePolicyScenarios(tool, policies);
    const steps = compositeSteps(tool.document);
    if (!steps) continue;
    const missing = new Map<string, string[]>();
    checkSteps(steps, { byName, conversion: tool.conversion, missing }, tool.stepsWhere);
    if (options.tree) noteMissing(missing, tool.conversion);
  }
}

const lastPart = (where: string) => where.slice(where.lastIndexOf('.') + 1);

/** One warning a tool the steps call and the folder does not define, at the first step that calls it. */
function noteMissing(missing: ReadonlyMap<string, readonly string[]>, conversion: Conversion): void {
  for (const [name, steps] of missing)
    conversion.note(
      'warning',
      joinPath(steps[0]!, 'tool'),
      `calls '${name}'${steps.length > 1 ? ` (so do ${steps.slice(1).map(lastPart).join(', ')})` : ''}, which no file of this folder defines; toolgen reports TG2002 until a tool of that name is in the config dir: migrate it too, or write it`,
    );
}

interface Scope {
  readonly byName: ReadonlyMap<string, MigratedTool>;
  readonly conversion: Conversion;
  /** The tools called that the migration does not define, with the steps that call each. */
  readonly missing: Map<string, string[]>;
}

function compositeSteps(document: Readonly<Record<string, unknown>>): unknown[] | null {
  const implementation = document['implementation'];
  if (!isPlainObject(implementation) || implementation['type'] !== 'composite') return null;
  const composite = implementation['composite'];
  return isPlainObject(composite) && Array.isArray(composite['steps']) ? composite['steps'] : null;
}

/** The tools a composite's steps call: each step's tool and fallbacks, blocks included. */
function calleesOf(steps: readonly unknown[]): string[] {
  return steps
    .filter(isPlainObject)
    .flatMap((step) => [
      ...(typeof step['tool'] === 'string' ? [step['tool']] : []),
      ...(Array.isArray(step['fallbacks']) ? step['fallbacks'].map(String) : []),
      ...(Array.isArray(step['parallel']) ? calleesOf(step['parallel']) : []),
      ...(isPlainObject(step['loop']) && Array.isArray(step['loop']['steps']) ? calleesOf(step['loop']['steps']) : []),
    ]);
}

interface Policies {
  /** Sorted. */
  readonly permissions: readonly string[];
  readonly casefile: boolean;
}

/** The policies a run of the tool meets, as toolgen works them out: its own and every callee's. */
function requiredPolicies(tool: MigratedTool, byName: ReadonlyMap<string, MigratedTool>): Policies {
  const permissions = new Set<string>();
  let casefile = false;
  const seen = new Set<string>();
  const visit = (current: MigratedTool) => {
    if (seen.has(current.name)) return;
    seen.add(current.name);
    const policies = current.document['policies'];
    if (isPlainObject(policies) && Array.isArray(policies['required_permissions']))
      policies['required_permissions'].forEach((permission) => permissions.add(String(permission)));
    casefile ||= isPlainObject(policies) && policies['requires_casefile'] === true;
    for (const callee of calleesOf(compositeSteps(current.document) ?? [])) {
      const found = byName.get(callee);
      if (found) visit(found);
    }
  };
  visit(tool);
  return { permissions: [...permissions].sort(), casefile };
}

/**
 * Gives each example whose context names permissions, or none, those a run needs; and each error
 * scenario too, unless it expects the policy failure a missing permission gives.
 */
function grantPermissions(tool: MigratedTool, required: readonly string[]): void {
  if (required.length === 0) return;
  const lists: [string, readonly string[]][] = [
    ['examples', tool.origins.examples],
    ['error_scenarios', tool.origins.errorScenarios],
  ];
  for (const [field, origins] of lists) {
    const scenarios = tool.document[field];
    if (!Array.isArray(scenarios)) continue;
    scenarios.forEach((scenario: Record<string, unknown>, index) => {
      const context = scenario['context'];
      const expected = scenario['expected_error'];
      if (!isPlainObject(context) || (isPlainObject(expected) && expected['kind'] === 'policy')) return;
      const granted = Array.isArray(context['permissions']) ? context['permissions'].map(String) : [];
      const missing = required.filter((permission) => !granted.includes(permission));
      if (missing.length === 0) return;
      context['permissions'] = [...granted, ...missing];
      tool.conversion.note(
        'rewritten',
        joinPath(joinPath(origins[index] ?? `${field}[${index}]`, 'context'), 'permissions'),
        `granted ${missing.join(', ')}, which a run needs (the tool's own permissions and those of the tools it calls): the original checked none, toolgen checks them before any tool runs`,
      );
    });
  }
}

/**
 * An error scenario that expects a policy failure its context cannot cause: the original's test
 * harness ran it as someone without the permission, toolgen runs it with the context it writes, or
 * one that grants everything the tool requires.
 */
function notePolicyScenarios(tool: MigratedTool, policies: Policies): void {
  const scenarios = tool.document['error_scenarios'];
  if (!Array.isArray(scenarios)) return;
  scenarios.forEach((scenario: Record<string, unknown>, index) => {
    const expected = scenario['expected_error'];
    if (!isPlainObject(expected) || expected['kind'] !== 'policy') return;
    const where = tool.origins.errorScenarios[index] ?? `error_scenarios[${index}]`;
    // One warning a scenario: a session or token failure was explained already.
    if (tool.conversion.notes.some((note) => note.kind === 'warning' && note.where.startsWith(where))) return;
    const context = scenario['context'];
    if (isPlainObject(context)) {
      const granted = Array.isArray(context['permissions']) ? context['permissions'].map(String) : [];
      if (policies.permissions.some((permission) => !granted.includes(permission))) return;
      if (policies.casefile && typeof context['casefile_id'] !== 'string') return;
    }
    tool.conversion.note(
      'warning',
      where,
      `expects a policy failure, and ${isPlainObject(context) ? 'its context grants' : 'its test runs with a context that grants'} ${policies.permissions.length > 0 || policies.casefile ? 'everything the tool requires' : 'everything, and the tool requires nothing'}: its test fails until it is given a context that lacks a permission, or removed`,
    );
  });
}

/** Warns, where each step is, for what the original got wrong in its calls. */
function checkSteps(steps: readonly unknown[], scope: Scope, where: string): void {
  steps.forEach((step, index) => {
    if (!isPlainObject(step)) return;
    const at = joinPath(where, index);
    if (Array.isArray(step['parallel'])) checkSteps(step['parallel'], scope, joinPath(at, 'parallel'));
    if (isPlainObject(step['loop']) && Array.isArray(step['loop']['steps']))
      checkSteps(step['loop']['steps'], scope, joinPath(joinPath(at, 'loop'), 'steps'));
    if (typeof step['tool'] === 'string') checkCall(step, step['tool'], scope, at);
  });
}

function checkCall(step: Readonly<Record<string, unknown>>, name: string, scope: Scope, where: string): void {
  const { byName, conversion } = scope;
  const callee = byName.get(name);
  if (!callee) {
    scope.missing.set(name, [...(scope.missing.get(name) ?? []), where]);
    return;
  }
  const parameters = ((callee.document['parameters'] as Record<string, unknown>[] | undefined) ?? []).filter(
    isPlainObject,
  );
  const names = new Set(parameters.map((parameter) => String(parameter['name'])));
  const inputs = isPlainObject(step['inputs']) ? step['inputs'] : {};
  for (const input of Object.keys(inputs).filter((key) => !names.has(key)))
    conversion.note(
      'warning',
      joinPath(joinPath(where, 'inputs'), input),
      `'${name}' has no parameter '${input}': the original dropped it unread (its parameter model ignored unknown fields), a bug of the original that toolgen reports (TG5001); remove it, or give '${name}' the parameter`,
    );
  const missing = parameters
    .filter((parameter) => parameter['required'] === true && !('default' in parameter))
    .map((parameter) => String(parameter['name']))
    .filter((parameter) => !(parameter in inputs));
  if (missing.length > 0)
    conversion.note(
      'warning',
      joinPath(where, 'inputs'),
      `'${name}' requires ${missing.join(', ')}, and this step does not pass ${missing.length === 1 ? 'it' : 'them'}: the original's call failed its input check at run time, a bug of the original that toolgen reports (TG5002)`,
    );
  const outputs = outputsOf(callee);
  const onSuccess = isPlainObject(step['on_success']) ? step['on_success'] : {};
  const mapOutputs = isPlainObject(onSuccess['map_outputs']) ? onSuccess['map_outputs'] : {};
  if (outputs === null) return;
  for (const [source, target] of Object.entries(mapOutputs)) {
    const head = /^[^.[]+/.exec(source)?.[0] ?? source;
    if (outputs.has(head)) continue;
    conversion.note(
      'warning',
      joinPath(joinPath(joinPath(where, 'on_success'), 'map_outputs'), source),
      `'${name}' returns no '${head}', so the original never set ${String(target)} (it skipped an output that was not there): a bug of the original that toolgen reports (TG5004); map a field '${name}' returns`,
    );
  }
}

/** The fields a tool's output has, as toolgen checks `map_outputs` against them; null when it cannot tell. */
function outputsOf(tool: MigratedTool): ReadonlySet<string> | null {
  const returns = tool.document['returns'];
  if (isPlainObject(returns) && isPlainObject(returns['properties']))
    return new Set(Object.keys(returns['properties']));
  const steps = compositeSteps(tool.document);
  if (!steps) return null;
  const state = setBySteps(steps);
  ((tool.document['parameters'] as Record<string, unknown>[] | undefined) ?? []).forEach((parameter) =>
    state.add(String(parameter['name'])),
  );
  return state;
}
