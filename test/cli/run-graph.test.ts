/**
 * `toolgen run` and `toolgen graph`, as a user runs them: the real CLI (the built bin) on the bundled
 * examples, with their real handlers imported through tsx.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProject, RELAY } from '../helpers/project.js';
import { ROOT, BIN, toolgenSync } from '../helpers/toolgen-process.js';

/** A module loader hook that says which heavy packages a process imports. */
const HOOKS = `import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (specifier === 'ts-morph' || specifier === 'typescript') writeSync(2, 'imported ' + specifier + '\\n');
  return next(specifier, context);
}
`;

function toolgen(...args: string[]) {
  return toolgenIn(ROOT, ...args);
}

function toolgenIn(cwd: string, ...args: string[]) {
  return toolgenSync(args, { cwd });
}

describe('toolgen run', () => {
  it('runs a composite with the real handlers and prints each step, its attempts and the result', () => {
    const run = toolgen('run', 'echo_chain_demo', '--input', '{"initial_message":"Hi"}');
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('echo_chain_demo:');
    expect(lines.filter((line) => /^ {2}\d+\. /.test(line))).toEqual([
      '  1. echo_tool: success',
      '  2. echo_tool_2 → echo_tool: success',
      '  3. echo_tool_3 → echo_tool: success',
    ]);
    expect(run.stdout).toContain('       input:  {"message":"Step 2: Hi","session_id":"chain_session"}');
    expect(lines.at(-2)).toBe(
      'result (success): {"initial_message":"Hi","step1_result":"Hi","step2_result":"Step 2: Hi","final_result":"Step 3: Step 2: Hi"}',
    );
  });

  it("shows skips by when, block members and redacted inputs; takes the caller's permissions", () => {
    const run = toolgen(
      'run',
      'inbox_triage',
      '--input',
      '{"query":"invoice"}',
      '--permissions',
      'gmail.read,drive.write',
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      '  4. alert → send_alert: skipped\n     skipped: when is false: state.urgent_count > 0',
    );
    expect(run.stdout).toMatch(
      /archive → drive_upload_file \(in finish\.archive\): success[\s\S]*"content":"\[REDACTED\]"/,
    );
  });

  it('--stub replaces a tool; a failed run exits 1 and says what was decided', () => {
    const run = toolgen(
      'run',
      'resilient_workflow',
      '--input',
      '{"search_term":"x"}',
      '--stub',
      'primary_data_tool={"error":"primary is down"}',
      '--stub',
      'fallback_data_tool={"error":"fallback too"}',
      '--json',
    );
    expect(run.status, run.stderr).toBe(1);
    const trace = JSON.parse(run.stdout) as {
      success: boolean;
      failure: { step: string; kind: string };
      steps: Array<{
        step: string;
        status: string;
        decisions: string[];
        attempts: Array<{ error?: { message: string } }>;
      }>;
    };
    expect(trace.success).toBe(false);
    expect(trace.failure).toMatchObject({ step: 'fallback_data_tool', kind: 'execution' });
    expect(trace.steps.map((step) => [step.step, step.status, step.decisions])).toEqual([
      ['primary_data_tool', 'failed', ['failed; the chain continued']],
      ['fallback_data_tool', 'failed', ['failed; the chain stopped']],
    ]);
    expect(trace.steps[0]!.attempts[0]!.error?.message).toBe('primary is down');
  });

  it('says which branch a choice took, and why a step with no attempt of its own failed (a wait without --store)', () => {
    const routed = toolgen('run', 'route_payment', '--input', '{"amount":50,"country":"DE"}');
    expect(routed.status, routed.stderr).toBe(0);
    expect(routed.stdout).toContain('  1. route: success\n     chose auto_approve\n');
    const input = '{"from_account_id":"acc_savings_001","to_account_id":"acc_checking_001","amount":5000}';
    const waited = toolgen('run', 'approved_transfer', '--permissions', 'banking.transfer', '--input', input);
    expect(waited.status).toBe(1);
    // Its on_failure went to the end, but nobody was asked: the step and the result both say failed.
    expect(waited.stdout).toContain(
      "  2. approval: failed\n     could not wait without a store; the chain went on, and the run is failed\n     error: execution: step 'approval' waits for signal 'approval', which only a durable run can do",
    );
    expect(waited.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^failed \(execution at step 'approval'\): .*\(toolgen run --store DIR\)$/,
    );
    const json = toolgen('run', 'approved_transfer', '--permissions', 'banking.transfer', '--input', input, '--json');
    const trace = JSON.parse(json.stdout) as {
      success: boolean;
      status: string;
      steps: Array<{ step: string; error?: { kind: string } }>;
    };
    expect([trace.success, trace.status]).toEqual([false, 'failed']);
    expect(trace.steps.find((step) => step.step === 'approval')?.error?.kind).toBe('execution');
  });

  it('--expression-depth and --expression-time-ms set the budget of every expression the run evaluates', () => {
    const triage = ['run', 'inbox_triage', '--input', '{"query":"invoice"}', '--permissions', 'gmail.read,drive.write'];
    const run = toolgen(...triage, '--expression-depth', '2', '--json');
    expect(run.status, run.stderr).toBe(1);
    const trace = JSON.parse(run.stdout) as { failure: { kind: string; message: string } };
    expect(trace.failure.kind).toBe('limit');
    expect(trace.failure.message).toMatch(/nested deeper than its budget of 2 levels \(expressionBudget\.depth\)/);
    const roomy = toolgen(...triage, '--expression-time-ms', '5000', '--expression-depth', '50');
    expect(roomy.status, roomy.stderr).toBe(0);
    const zero = toolgen('run', 'inbox_triage', '--expression-time-ms', '0');
    expect(zero.status).toBe(2);
    expect(zero.stderr).toMatch(/--expression-time-ms.*expected a whole number of at least 1/);
  });

  it('reads --input from a file', () => {
    const run = toolgen('run', 'echo_tool', '--input', '@config/tools/demo/../../tool.schema.json', '--json');
    // The schema is JSON but not an echo_tool input: a failed call, exit 1.
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ success: false, failure: { kind: 'validation' } });
  });

  it.each([
    [['run', 'echo_tool', '--input', '{not json'], /--input is not JSON/],
    [['run', 'no_such_tool'], /no tool named 'no_such_tool'/],
    [['run', 'echo_tool', '--stub', 'echo_tool={"data":1}'], /--stub takes TOOL=JSON/],
    [['run', 'echo_tool', '--registry', 'missing/index.ts'], /missing\/index\.ts does not exist/],
  ])('exits 2 on bad usage: %j', (args, message) => {
    const run = toolgen(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('toolgen graph', () => {
  it('prints the flowchart that generated/graphs holds', () => {
    const run = toolgen('graph', 'inbox_triage');
    expect(run.status, run.stderr).toBe(0);
    const markdown = readFileSync(path.join(ROOT, 'generated/graphs/inbox_triage.md'), 'utf8');
    expect(markdown).toContain(`\`\`\`mermaid\n${run.stdout}\`\`\``);
  });

  it('does not trust a picture edited by hand: it compiles the tool instead', () => {
    const project = createProject({ 'config/tools/relay.yaml': RELAY });
    try {
      expect(toolgenIn(project.root).status).toBe(0);
      const fromFile = toolgenIn(project.root, 'graph', 'relay');
      expect(fromFile.stdout).toContain('flowchart TD\n  chain_start(["relay"])');
      project.write('generated/graphs/relay.md', project.read('generated/graphs/relay.md').replace('relay', 'edited'));
      const compiled = toolgenIn(project.root, 'graph', 'relay');
      expect(compiled.status, compiled.stderr).toBe(0);
      expect(compiled.stdout).toBe(fromFile.stdout);
    } finally {
      project.dispose();
    }
  });

  it('after an edit, compiles the picture without TypeScript: the handler modules are as the last build read them', () => {
    const project = createProject({ 'config/tools/relay.yaml': RELAY });
    // Tells on stderr when the process imports ts-morph (and with it TypeScript).
    project.write('hooks.mjs', HOOKS);
    project.write(
      'register.mjs',
      "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
    );
    try {
      expect(toolgenIn(project.root).status).toBe(0);
      const before = toolgenIn(project.root, 'graph', 'relay').stdout;
      project.write('config/tools/relay.yaml', `${RELAY}# an edit since the last build\n`);
      const graph = spawnSync(process.execPath, ['--import', './register.mjs', BIN, 'graph', 'relay'], {
        cwd: project.root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 60_000,
      });
      expect(graph.status, graph.stderr).toBe(0);
      expect(graph.stdout).toBe(before);
      expect(graph.stderr).not.toContain('imported ts-morph');
    } finally {
      project.dispose();
    }
  });

  it.each([
    ['echo_tool', /'echo_tool' is an atomic tool/],
    ['inbox_triag', /no tool named 'inbox_triag' under the config dir; did you mean 'inbox_triage'\?/],
  ])('exits 2 for %s', (name, message) => {
    const run = toolgen('graph', name);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
