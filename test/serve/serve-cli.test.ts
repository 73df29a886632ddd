/**
 * `npx toolgen serve --http` as a user starts it (the built bin, a real server process) and the
 * official client: a host beyond loopback is refused without tokens; tokens from a file and from
 * `TOOLGEN_SERVE_TOKENS` make each call run as their user with their scopes; the protected resource
 * metadata is published; `--store` makes a wait step suspend. And `toolgen run` with and without `--store`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect as connectSocket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Client,
  discoverOAuthProtectedResourceMetadata,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, BIN, toolgenSync } from '../helpers/toolgen-process.js';

const transfer = { from_account_id: 'acc_savings_001', to_account_id: 'acc_checking_001', amount: 5000 };

/** Starts `toolgen serve` and resolves with its URL once it listens (or rejects with what it said when it exits). */
function serve(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /serving \d+ tools at (\S+)/.exec(stderr)?.[1];
      if (url) resolve({ url, child, stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`toolgen serve exited with ${code}: ${stderr}`)));
  });
}

function toolgen(...args: string[]) {
  return toolgenSync(args);
}

describe('toolgen serve --http beyond loopback', () => {
  it('refuses a non-loopback host without tokens, saying how to give them', () => {
    const run = toolgen('serve', '--http', '0', '--host', '0.0.0.0');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--host 0.0.0.0 would serve every tool');
    expect(run.stderr).toContain('--tokens FILE or TOOLGEN_SERVE_TOKENS');
    expect(run.stderr).toContain('--allow-unauthenticated');
  });

  it('refuses a token file it cannot use', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgen-tokens-'));
    try {
      writeFileSync(path.join(dir, 'tokens.json'), JSON.stringify([{ token: 'short', user: 'a', scopes: [] }]));
      const run = toolgen('serve', '--http', '0', '--tokens', path.join(dir, 'tokens.json'));
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/entry 1: token must be a string of at least 16 characters/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves a non-loopback host without tokens only when told, with a warning', async () => {
    const { child, stderr } = await serve(['--http', '0', '--host', '0.0.0.0', '--allow-unauthenticated']);
    child.kill('SIGTERM');
    expect(stderr()).toContain('warning: serving on 0.0.0.0 without authentication');
  }, 60_000);
});

describe('toolgen serve --http --tokens --store', () => {
  let dir: string;
  let url: string;
  let child: ChildProcess;
  const clients: Client[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolgen-serve-'));
    writeFileSync(
      path.join(dir, 'tokens.json'),
      JSON.stringify([{ token: 'alice-0123456789abcdef', user: 'alice', scopes: ['banking.transfer'] }]),
    );
    ({ url, child } = await serve(
      [
        '--http',
        '0',
        '--tokens',
        path.join(dir, 'tokens.json'),
        '--store',
        path.join(dir, 'runs'),
        '--audit-log',
        path.join(dir, 'audit.jsonl'),
        '--permissions',
        'banking.transfer',
      ],
      { TOOLGEN_SERVE_TOKENS: JSON.stringify([{ token: 'bob-0123456789abcdef', user: 'bob', scopes: [] }]) },
    ));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(token: string | undefined): Promise<Client> {
    const client = new Client({ name: 'toolgen-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }),
    );
    clients.push(client);
    return client;
  }

  it('refuses a client without a token, and publishes where to learn about tokens', async () => {
    await expect(connect(undefined)).rejects.toThrow();
    expect(await discoverOAuthProtectedResourceMetadata(url)).toMatchObject({ resource: url });
  });

  it('runs calls as the token user with its scopes, not as --user and --permissions', async () => {
    const bob = await connect('bob-0123456789abcdef');
    const refused = await bob.callTool({ name: 'approved_transfer', arguments: { ...transfer, amount: 100 } });
    expect(refused._meta?.['toolgen/failure']).toMatchObject({ kind: 'policy' });
    const alice = await connect('alice-0123456789abcdef');
    const done = await alice.callTool({ name: 'approved_transfer', arguments: { ...transfer, amount: 100 } });
    expect(done.isError).toBeFalsy();
    const users = readFileSync(path.join(dir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { userId: string }).userId);
    expect(new Set(users)).toEqual(new Set(['bob', 'alice']));
  });

  it('suspends a run at its wait step with --store, and says so', async () => {
    const alice = await connect('alice-0123456789abcdef');
    const result = await alice.callTool({ name: 'approved_transfer', arguments: transfer });
    expect(result.isError).toBe(true);
    expect(result._meta?.['toolgen/suspended']).toMatchObject({ step: 'approval', signal: 'approval' });
  });
});

describe('toolgen run and a wait step', () => {
  const input = JSON.stringify(transfer);

  it('without --store: the wait could not happen, and the run is reported failed (exit 1), not partial', () => {
    const run = toolgen('run', 'approved_transfer', '--input', input, '--permissions', 'banking.transfer');
    expect(run.status).toBe(1);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(
      /^failed \(execution at step 'approval'\): .*only a durable run can do.*\(toolgen run --store DIR\)$/,
    );
  });

  it('with --store: the run suspends, and says what it waits for', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolgen-run-store-'));
    try {
      const run = toolgen(
        'run',
        'approved_transfer',
        '--input',
        input,
        '--permissions',
        'banking.transfer',
        '--store',
        dir,
      );
      expect(run.status).toBe(1);
      expect(run.stdout.trim().split('\n').at(-1)).toMatch(
        /^suspended at step 'approval': run '.+' waits for signal 'approval' until \d{4}-/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('toolgen serve and the expression budget', () => {
  it('--expression-depth is the budget of every call it serves', async () => {
    const { url, child } = await serve([
      '--http',
      '0',
      '--expression-depth',
      '2',
      '--permissions',
      'gmail.read,drive.write',
    ]);
    const client = new Client({ name: 'toolgen-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const result = await client.callTool({ name: 'inbox_triage', arguments: { query: 'invoice' } });
      expect(result.isError).toBe(true);
      expect(result._meta?.['toolgen/failure']).toMatchObject({ kind: 'limit' });
      expect(JSON.stringify(result.content)).toContain('nested deeper than its budget of 2 levels');
    } finally {
      await client.close();
      child.kill('SIGTERM');
    }
  }, 60_000);
});

describe('toolgen serve --http and the requests it refuses', () => {
  /** What a raw connection receives until the server closes it. */
  function raw(url: string, send: string | null): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connectSocket(Number(new URL(url).port), '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      socket.once('close', () => resolve(received)).once('error', reject);
      if (send !== null) socket.write(send);
    });
  }

  it('--allowed-origins and --headers-timeout reach the server', async () => {
    const { url, child } = await serve([
      '--http',
      '0',
      '--allowed-origins',
      'https://app.example.test',
      '--headers-timeout',
      '0.2',
    ]);
    try {
      const initialize = (origin: string) =>
        raw(
          url,
          [
            'POST /mcp HTTP/1.1',
            'Host: localhost',
            `Origin: ${origin}`,
            'Content-Type: application/json',
            'Accept: application/json, text/event-stream',
            'Connection: close',
            'Content-Length: 2',
            '',
            '{}',
          ].join('\r\n'),
        );
      expect(await initialize('https://evil.example.test')).toMatch(/^HTTP\/1\.1 403[^]*--allowed-origins/);
      expect(await initialize('https://app.example.test')).not.toMatch(/^HTTP\/1\.1 403/);
      // Headers never finished: 408 once --headers-timeout has passed, instead of Node's 60 s.
      expect(await raw(url, 'POST /mcp HTTP/1.1\r\nHost: localhost\r\n')).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);

  it('--max-connections closes a connection past the cap as it arrives', async () => {
    const { url, child } = await serve(['--http', '0', '--max-connections', '2']);
    const held = [connectSocket(Number(new URL(url).port), '127.0.0.1')];
    try {
      await new Promise((resolve) => held[0]!.once('connect', resolve));
      held.push(connectSocket(Number(new URL(url).port), '127.0.0.1'));
      await new Promise((resolve) => held[1]!.once('connect', resolve));
      // The third is closed without an answer; the two held stay open (10 s for their headers).
      expect(await raw(url, null)).toBe('');
    } finally {
      for (const socket of held) socket.destroy();
      child.kill('SIGTERM');
    }
  }, 60_000);

  it.each([
    [
      ['--headers-timeout', '40', '--request-timeout', '20'],
      '--headers-timeout (40) cannot be longer than --request-timeout (20)',
    ],
    [['--allowed-origins', 'https://app.example.test/path'], '--allowed-origins takes origins'],
    [['--max-connections', '0'], 'expected a whole number of at least 1'],
  ])('refuses %j', (flags, message) => {
    const run = toolgen('serve', '--http', '0', ...flags);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('refuses the HTTP flags without --http', () => {
    const run = toolgen('serve', '--allowed-origins', 'https://app.example.test');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--allowed-origins applies to --http only');
  });
});
