/**
 * `serveHttp` behind bearer tokens, driven by the official client: without a token, 401 and a
 * `WWW-Authenticate` challenge naming the protected resource metadata, which real clients discover;
 * with one, every call runs as the token's user with its scopes as permissions, in both protocol eras;
 * a session belongs to the token that opened it; a non-loopback host without authentication is refused.
 */
import {
  Client,
  discoverOAuthProtectedResourceMetadata,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../generated/index.js';
import { serveHttp, sha256, staticTokens, type HttpServerHandle } from '../../src/serve/index.js';
import type { AuditRecord } from '../../src/runtime/index.js';

describe('serveHttp with bearer tokens', () => {
  let server: HttpServerHandle;
  const audit: AuditRecord[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await serveHttp({
      registry: createToolRegistry(),
      port: 0,
      onAudit: (record) => audit.push(record),
      // Without a token, the defaults would let anyone call as 'nobody' with every permission: they must not apply.
      defaults: { userId: 'nobody', permissions: ['gmail.read', 'drive.write'] },
      auth: {
        verifier: staticTokens([
          { token: 'alice-token', user: 'alice', scopes: ['gmail.read', 'drive.write'] },
          { sha256: sha256('bob-token'), user: 'bob', scopes: [] },
        ]),
        scopesSupported: ['gmail.read', 'drive.write'],
      },
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await server?.close();
  });

  async function connect(token: string | undefined, era: 'legacy' | 'auto' = 'legacy') {
    const client = new Client({ name: 'toolgen-test', version: '1.0.0' }, { versionNegotiation: { mode: era } });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      authProvider: { token: async () => token },
    });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  it('refuses a request without a token: 401, with a challenge naming the protected resource metadata', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    const metadataUrl = server.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');
    expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    await expect(connect(undefined)).rejects.toThrow();
    await expect(connect('not-a-token')).rejects.toThrow();
  });

  it('publishes the protected resource metadata (RFC 9728) where the client looks for it', async () => {
    const metadata = await discoverOAuthProtectedResourceMetadata(server.url);
    expect(metadata).toMatchObject({
      resource: server.url,
      bearer_methods_supported: ['header'],
      scopes_supported: ['gmail.read', 'drive.write'],
    });
    const bare = await fetch(new URL('/.well-known/oauth-protected-resource', server.url));
    expect(await bare.json()).toMatchObject({ resource: server.url });
  });

  it.each(['legacy', 'auto'] as const)(
    'runs every call (%s era) as the token user, with its scopes as permissions',
    async (era) => {
      audit.length = 0;
      const { client } = await connect('alice-token', era);
      const result = await client.callTool({ name: 'inbox_triage', arguments: { query: 'invoice' } });
      expect(result.isError).toBeFalsy();
      expect(new Set(audit.map((record) => record.userId))).toEqual(new Set(['alice']));
    },
  );

  it('gives a token without the scopes a policy error, under its own user', async () => {
    audit.length = 0;
    const { client } = await connect('bob-token');
    const result = await client.callTool({ name: 'inbox_triage', arguments: { query: 'invoice' } });
    expect(result.isError).toBe(true);
    expect(result._meta?.['toolgen/failure']).toMatchObject({ kind: 'policy' });
    expect(audit.map((record) => record.userId)).toEqual(['bob']);
  });

  it("does not let one token use another's session", async () => {
    const { transport } = await connect('alice-token');
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer bob-token',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
  });
});

describe('serveHttp behind a proxy (auth.resourceUrl)', () => {
  it('names the public URL in the metadata and the challenge, and answers to its host name', async () => {
    const server = await serveHttp({
      registry: createToolRegistry(),
      port: 0,
      auth: { verifier: staticTokens([]), resourceUrl: 'https://mcp.example.test/tools/mcp' },
    });
    try {
      const refused = await fetch(server.url, { method: 'POST', body: '{}' });
      expect(refused.headers.get('www-authenticate')).toContain(
        'resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/tools/mcp"',
      );
      const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/tools/mcp', server.url));
      expect(await metadata.json()).toMatchObject({ resource: 'https://mcp.example.test/tools/mcp' });
      const { request } = await import('node:http');
      const status = await new Promise<number>((resolve, reject) => {
        const { port } = new URL(server.url);
        request(
          { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host: 'mcp.example.test' } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        )
          .on('error', reject)
          .end('{}');
      });
      expect(status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe('serveHttp beyond loopback', () => {
  it('refuses to serve a non-loopback host without authentication, unless told explicitly', async () => {
    await expect(serveHttp({ registry: createToolRegistry(), port: 0, host: '0.0.0.0' })).rejects.toThrow(
      /exposes every tool to the network/,
    );
    const open = await serveHttp({
      registry: createToolRegistry(),
      port: 0,
      host: '0.0.0.0',
      allowUnauthenticated: true,
    });
    await open.close();
  });
});
