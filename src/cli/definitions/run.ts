/** `toolgen run NAME --input JSON`. */
import { defineCommand } from '../command.js';
import { collect } from '../flag-values.js';
import {
  CALLER_FLAGS,
  callerOptions,
  JOURNAL_RUNS,
  JSON_TRACE,
  READS_OUT_DIR,
  type CallerFlags,
} from './shared-flags.js';

interface RunFlags extends CallerFlags {
  readonly input: string;
  readonly stub: string[];
  readonly json?: boolean;
  readonly store?: string;
}

export const run = defineCommand<{ name: string }, RunFlags>({
  name: 'run',
  usage: 'run NAME --input JSON',
  description: "run one tool with the app's real handlers and print a step-by-step trace",
  details: 'See Trying a tool.',
  exit: '0 when the run succeeds, 1 when it fails or suspends, 2 on bad usage',
  arguments: [{ name: '<name>', description: 'the tool to run' }],
  flags: [
    { flags: '--input <json>', description: 'the input: JSON text, or @file.json', default: '{}' },
    {
      flags: '--stub <tool=json...>',
      description: 'replace a tool: {"output": …}, {"error": "…"} or {"sequence": [ … ]}',
      parse: collect,
      default: [],
    },
    JOURNAL_RUNS,
    JSON_TRACE,
    ...CALLER_FLAGS,
  ],
  programFlags: READS_OUT_DIR,
  run: async (invocation) => {
    const { runCommand } = await import('../run.js');
    const { flags } = invocation;
    const options = {
      ...(await callerOptions(invocation)),
      input: flags.input,
      stubs: flags.stub,
      json: flags.json === true,
      store: flags.store ?? null,
    };
    return runCommand(invocation.args.name, options, invocation.output);
  },
});
