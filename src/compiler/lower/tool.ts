/**
 * Stage 5: a checked tool becomes a `LoweredTool`, everything emit prints worked out here: the plan,
 * policies and audit settings with their defaults, the handler's import, the test cases.
 */
import path from 'node:path';
import { defaultAuditEvents, DEFAULTS, type ChainPlan } from '../../language/plan.js';
import type { JsonSchema } from '../../language/json.js';
import { everyStepNode, type CompositeAnalysis } from '../check/composite.js';
import { stateSchema } from '../check/state-types.js';
import { shownPath, toolPaths, type ToolPaths } from '../layout.js';
import type { Catalogue, CatalogueEntry } from '../resolve/catalogue.js';
import { lowerComposite } from './plan.js';
import { lowerTests } from './tests.js';
import type { LoweredFunction, LoweredTool } from './unit.js';

export interface LowerContext {
  readonly catalogue: Catalogue;
  /** The project root: the source path is shown relative to it. */
  readonly root: string;
  readonly outDir: string;
}

/**
 * Lowers one tool that passed its checks; `analysis` is the composite's (null for a function tool).
 *
 * @example lowerTool(entry, null, ctx).implementation.kind // 'function'
 */
export function lowerTool(entry: CatalogueEntry, analysis: CompositeAnalysis | null, ctx: LowerContext): LoweredTool {
  const { document } = entry;
  const paths = toolPaths(ctx.outDir, entry.names.fileSlug);
  const plan = analysis ? lowerComposite(entry, analysis) : null;
  return {
    name: entry.name,
    names: entry.names,
    source: shownPath(ctx.root, entry.source.absolutePath),
    paths,
    description: document.description,
    displayName: document.display_name ?? null,
    parameters: entry.inputSchema,
    policies: {
      requiresCasefile: document.policies?.requires_casefile ?? DEFAULTS.policies.requiresCasefile,
      requiredPermissions: document.policies?.required_permissions ?? DEFAULTS.policies.requiredPermissions,
      timeoutSeconds: document.policies?.timeout_seconds ?? DEFAULTS.policies.timeoutSeconds,
    },
    audit: {
      successEvent: document.audit?.success_event ?? defaultAuditEvents(entry.name).successEvent,
      failureEvent: document.audit?.failure_event ?? defaultAuditEvents(entry.name).failureEvent,
      redactFields: document.audit?.redact_fields ?? [],
    },
    implementation:
      analysis && plan
        ? {
            kind: 'composite',
            state: stateSchema(analysis.state),
            returns: entry.returns ?? stateSchema(analysis.state),
            plan,
            suspends: plan.steps.some((step) => step.kind === 'wait'),
            stepLines: Object.fromEntries(
              everyStepNode(analysis.nodes).map((node) => [node.id, entry.source.lineOf(node.path)]),
            ),
          }
        : lowerFunction(entry, ctx.catalogue, paths),
    tests: lowerTests(entry, ctx.catalogue, plan),
  };
}

/** The plan of a lowered composite; null for a function tool. */
export function planOf(unit: LoweredTool): ChainPlan | null {
  return unit.implementation.kind === 'composite' ? unit.implementation.plan : null;
}

/** What a handler receives when it differs from the parameters: defaults filled in, so those are never missing. */
export function handlerInputSchema(entry: CatalogueEntry): JsonSchema | null {
  const defaulted = entry.parameters.filter((p) => p.default !== undefined).map((p) => p.name);
  return defaulted.length > 0
    ? { ...entry.inputSchema, required: [...(entry.inputSchema['required'] as string[]), ...defaulted] }
    : null;
}

function lowerFunction(entry: CatalogueEntry, catalogue: Catalogue, paths: ToolPaths): LoweredFunction {
  const handler = entry.handler!;
  // The module file resolve found (`./x.js` may be `./x.ts`), imported as TypeScript resolves it.
  const file = catalogue.handlerFile(entry.name) ?? handler.modulePath;
  let specifier = path
    .relative(path.dirname(paths.module), file)
    .split(path.sep)
    .join('/')
    .replace(/\.(m?)tsx?$/, '.$1js');
  if (!specifier.startsWith('.')) specifier = `./${specifier}`;
  return {
    kind: 'function',
    returns: entry.returns,
    handlerInput: handlerInputSchema(entry),
    handler: { exportName: handler.exportName, specifier },
  };
}
