/**
 * Redocly CLI (`@redocly/cli`, a development dependency) as the tests' second opinion on Arazzo:
 * `redocly respect` runs a workflow against a server and `redocly lint` checks a document. Neither
 * reaches past this machine: no telemetry, no update check (the environment below; without it each
 * run tries to reach Redocly's telemetry server); lint reads only the file, and Respect reads the
 * sources the file names (a URL would be fetched: give it files whose sources are local) and calls
 * the servers given. Only the `e2e` project may use it (`test/projects.ts`): it starts processes.
 *
 * What Respect 2.x writes with `--json-output` (one file, every workflow it ran):
 *
 *     { status, totalTime, files: { [arazzoFileName]: { totalRequests, totalTimeMs, globalTimeoutError,
 *       executedWorkflows: [{ type: 'workflow', workflowId, status: 'success' | 'warn' | 'error',
 *         executedSteps: [step | calledWorkflow] }] } } }
 *     step = { type: 'step', stepId, workflowId, status, request: { method, url, headers, body? },
 *       response: { statusCode, body?, headers, time, size }, checks: [{ name, passed, message,
 *       severity, status, condition? }] }
 *     calledWorkflow = a workflow as above, with `stepId`: the step that called it
 *
 * It holds no workflow outputs: Respect computes them but writes them nowhere machine-readable, so
 * `RespectRun.outputs` is never set; what a step passed on shows in the next request's URL and body.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './toolgen-process.js';

export { startPrism, type PrismMock } from './prism.js';

export const REDOCLY = path.join(ROOT, 'node_modules/.bin/redocly');

/** Whether the devDependency is installed (`"@redocly/cli": "2.77.0"`). */
export const hasRedocly = existsSync(REDOCLY);

/** No telemetry and no check for a newer version (each would reach the network), no colour. */
export const REDOCLY_ENV = {
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  NO_COLOR: '1',
} as const;

export interface RespectStep {
  /** The workflow the step belongs to (a called workflow's steps carry its own id). */
  readonly workflowId: string;
  readonly stepId: string;
  /** Every check Respect made passed, or failed with severity `warn` only. */
  readonly ok: boolean;
  /** The response's status; absent when no response came (Respect writes 0 then). */
  readonly status?: number;
  /** `GET`, `POST`…; absent for a step that calls a workflow, or when Respect could build no request. */
  readonly method?: string;
  readonly url?: string;
  readonly requestBody?: unknown;
  readonly responseBody?: unknown;
  /** `name: message` of each check that did not pass, as Respect words it. */
  readonly failures: readonly string[];
  /** For a step that calls a workflow: that workflow's id (its steps follow in `steps`). */
  readonly calls?: string;
}

export interface RespectRun {
  /** The steps in the order Respect ran them, called workflows' steps after their calling step. */
  readonly steps: readonly RespectStep[];
  /** Each workflow Respect ran from the file, in order, and whether it passed. */
  readonly workflows: readonly { readonly workflowId: string; readonly ok: boolean }[];
  /** Never set by Respect 2.x (see the top of this file); kept for a runner that reports them. */
  readonly outputs?: Record<string, unknown>;
  readonly exitCode: number | null;
  /** What Respect printed (stdout and stderr): why it refused a file when it ran nothing. */
  readonly output: string;
}

export interface RespectOptions {
  /** One workflow of the file; all of them when absent. */
  readonly workflow?: string;
  /** A source description's name → the base URL its operations are called on. */
  readonly servers?: Record<string, string>;
  /** The workflow's inputs (`--input` as JSON). */
  readonly inputs?: Record<string, unknown>;
}

interface Exit {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly output: string;
}

/** `redocly ARGS…` in `cwd`, waited for (two minutes at most). */
function redocly(args: readonly string[], cwd: string): Promise<Exit> {
  const child = spawn(REDOCLY, args, { cwd, env: { ...process.env, ...REDOCLY_ENV }, timeout: 120_000 });
  let stdout = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ exitCode, stdout, output }));
  });
}

interface JsonCheck {
  readonly name: string;
  readonly passed: boolean;
  readonly message?: string;
  readonly severity?: string;
}

interface JsonStep {
  readonly type: 'step';
  readonly stepId: string;
  readonly workflowId: string;
  readonly status: string;
  readonly request: { readonly method: string; readonly url: string; readonly body?: unknown };
  readonly response: { readonly statusCode: number; readonly body?: unknown };
  readonly checks: readonly JsonCheck[];
}

interface JsonWorkflow {
  readonly type: 'workflow';
  readonly workflowId: string;
  readonly stepId?: string;
  readonly status: string;
  readonly executedSteps: readonly (JsonStep | JsonWorkflow)[];
}

interface JsonReport {
  readonly files: Record<string, { readonly executedWorkflows: readonly JsonWorkflow[] }>;
}

const failuresOf = (checks: readonly JsonCheck[]) =>
  checks.filter((check) => !check.passed).map((check) => `${check.name}: ${check.message ?? ''}`.trim());

/** A workflow's steps in the order they ran, a called workflow's after the step that called it. */
function stepsOf(workflow: JsonWorkflow, parent?: string): RespectStep[] {
  return workflow.executedSteps.flatMap((entry): RespectStep[] => {
    if (entry.type === 'workflow') {
      const calling: RespectStep = {
        workflowId: parent ?? workflow.workflowId,
        stepId: entry.stepId ?? '',
        ok: entry.status !== 'error',
        failures: [],
        calls: entry.workflowId,
      };
      return [calling, ...stepsOf(entry)];
    }
    const status = entry.response.statusCode || undefined;
    return [
      {
        workflowId: entry.workflowId,
        stepId: entry.stepId,
        ok: entry.status !== 'error',
        ...(status === undefined ? {} : { status }),
        ...(entry.request.method === '' ? {} : { method: entry.request.method.toUpperCase() }),
        ...(entry.request.url === '' ? {} : { url: entry.request.url }),
        ...(entry.request.body === undefined ? {} : { requestBody: entry.request.body }),
        ...(entry.response.body === undefined ? {} : { responseBody: entry.response.body }),
        failures: failuresOf(entry.checks),
      },
    ];
  });
}

/**
 * `redocly respect FILE` against the servers given, read from its JSON report.
 *
 * @example
 * const run = await runRespect('test/fixtures/arazzo/oauth.arazzo.yaml', {
 *   workflow: 'client-credentials-flow',
 *   servers: { 'apim-auth': mock.url },
 *   inputs: { client_id: 'a', client_secret: 'b' },
 * });
 * run.steps.map(({ stepId, status }) => [stepId, status]); // [['get-client-creds-token', 200]]
 */
export async function runRespect(arazzoFile: string, options: RespectOptions = {}): Promise<RespectRun> {
  const folder = await mkdtemp(path.join(tmpdir(), 'toolgen-respect-'));
  const report = path.join(folder, 'respect.json');
  const args = [
    'respect',
    path.resolve(arazzoFile),
    ...(options.workflow === undefined ? [] : ['--workflow', options.workflow]),
    ...Object.entries(options.servers ?? {}).flatMap(([name, url]) => ['--server', `${name}=${url}`]),
    ...(options.inputs === undefined ? [] : ['--input', JSON.stringify(options.inputs)]),
    '--json-output',
    report,
  ];
  try {
    const { exitCode, output } = await redocly(args, folder);
    // Respect writes no report when it refuses the file before running anything.
    const text = existsSync(report) ? await readFile(report, 'utf8') : undefined;
    if (text === undefined) return { steps: [], workflows: [], exitCode, output };
    const files = Object.values((JSON.parse(text) as JsonReport).files);
    const ran = files.flatMap((file) => file.executedWorkflows);
    return {
      steps: ran.flatMap((workflow) => stepsOf(workflow)),
      workflows: ran.map(({ workflowId, status }) => ({ workflowId, ok: status !== 'error' })),
      exitCode,
      output,
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export interface LintProblem {
  readonly ruleId: string;
  readonly severity: 'error' | 'warn';
  readonly message: string;
  /** JSON pointer into the file (`#/workflows/0/steps/4/parameters/0/value`). */
  readonly pointer?: string;
  readonly line?: number;
}

/**
 * `redocly lint FILE` with its built-in recommended rules (it runs in the repository's root, which
 * has no redocly.yaml): `ok` when it found no error, warnings allowed, as the command's exit code says.
 *
 * @example
 * const { ok, problems } = await redoclyLint('test/fixtures/arazzo/oauth.arazzo.yaml');
 */
export async function redoclyLint(file: string): Promise<{ ok: boolean; problems: LintProblem[] }> {
  const { exitCode, stdout, output } = await redocly(['lint', '--format=json', path.resolve(file)], ROOT);
  let report: {
    problems: {
      ruleId: string;
      severity: 'error' | 'warn';
      message: string;
      location?: { pointer?: string; start?: { line: number } }[];
    }[];
  };
  try {
    report = JSON.parse(stdout);
  } catch {
    throw new Error(`redocly lint wrote no report (exit ${exitCode}):\n${output}`);
  }
  const problems = report.problems.map(({ ruleId, severity, message, location }) => ({
    ruleId,
    severity,
    message,
    ...(location?.[0]?.pointer === undefined ? {} : { pointer: location[0].pointer }),
    ...(location?.[0]?.start === undefined ? {} : { line: location[0].start.line }),
  }));
  return { ok: exitCode === 0, problems };
}
