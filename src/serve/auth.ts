/**
 * Bearer tokens in front of the HTTP endpoint, with the SDK's verification (`requireBearerAuth`): a
 * request without a valid token gets 401 and a `WWW-Authenticate` challenge naming the protected
 * resource metadata (RFC 9728), which the server publishes at `/.well-known/oauth-protected-resource`
 * (and under the endpoint's path). The token's client id is the audit's user, its scopes the caller's
 * permissions. `staticTokens` verifies a fixed list of tokens; any `OAuthTokenVerifier` (an
 * introspection endpoint, JWTs) fits.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
  type AuthInfo,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';

export interface HttpAuthOptions {
  readonly verifier: OAuthTokenVerifier;
  /**
   * The endpoint's URL as clients reach it (behind a proxy, its public `https://` URL): the metadata's
   * `resource`. Default: `http://` and the request's `Host`, then the endpoint's path.
   */
  readonly resourceUrl?: string;
  /** Where clients get tokens (the metadata's `authorization_servers`); none for tokens handed out by hand. */
  readonly authorizationServers?: readonly string[];
  /** The metadata's `scopes_supported`. */
  readonly scopesSupported?: readonly string[];
  /** Scopes every token must have (403 `insufficient_scope` otherwise). */
  readonly requiredScopes?: readonly string[];
}

/** One token a `staticTokens` verifier accepts: the token itself or its SHA-256 (hex), and who it is. */
export interface StaticToken {
  readonly token?: string;
  readonly sha256?: string;
  /** The audit's user (`AuthInfo.clientId`). */
  readonly user: string;
  /** The caller's permissions (`AuthInfo.scopes`). */
  readonly scopes: readonly string[];
  /** Seconds since the epoch after which the token is refused; none: it does not expire. */
  readonly expiresAt?: number;
}

/** How long a token without an expiry is reported valid (the SDK refuses a token with none); it is re-verified on every request. */
const NO_EXPIRY_SECONDS = 3600;

/**
 * A verifier of a fixed list of tokens. Tokens are compared by their SHA-256, so the comparison's
 * time says nothing about a token's characters.
 *
 * @example serveHttp({ registry, port: 3000, auth: { verifier: staticTokens([{ token: process.env.T!, user: 'ci', scopes: ['gmail.read'] }]) } });
 */
export function staticTokens(tokens: readonly StaticToken[]): OAuthTokenVerifier {
  const byHash = new Map(tokens.map((entry) => [(entry.sha256 ?? sha256(entry.token ?? '')).toLowerCase(), entry]));
  return {
    verifyAccessToken: async (token) => {
      const entry = byHash.get(sha256(token));
      if (!entry) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown token');
      const expiresAt = entry.expiresAt ?? Math.floor(Date.now() / 1000) + NO_EXPIRY_SECONDS;
      return { token, clientId: entry.user, scopes: [...entry.scopes], expiresAt };
    },
  };
}

/** The hex SHA-256 of a token, as a token file may hold it instead of the token. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Serves the metadata and checks tokens, for the HTTP server. */
export interface AuthLayer {
  /** Answers a request for the protected resource metadata; false when the request is for something else. */
  metadata(req: IncomingMessage, res: ServerResponse, pathname: string): boolean;
  /** The caller's verified token; null when the request was refused (401, 403), and answered. */
  authenticate(req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | null>;
}

/** @example const auth = authLayer({ verifier }, '/mcp'); if (auth.metadata(req, res, pathname)) return; */
export function authLayer(options: HttpAuthOptions, endpoint: string): AuthLayer {
  const resource = (req: IncomingMessage) =>
    options.resourceUrl ?? `http://${req.headers.host ?? 'localhost'}${endpoint}`;
  // RFC 9728 puts the resource's path after the well-known one (behind a proxy, the public path);
  // clients also try the bare one.
  const paths = new Set([WELL_KNOWN, `${WELL_KNOWN}${endpoint}`]);
  if (options.resourceUrl) paths.add(`${WELL_KNOWN}${new URL(options.resourceUrl).pathname.replace(/\/$/, '')}`);
  return {
    metadata(req, res, pathname) {
      if (!paths.has(pathname)) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD' }).end();
        return true;
      }
      const document: OAuthProtectedResourceMetadata = {
        resource: resource(req),
        bearer_methods_supported: ['header'],
        resource_name: 'toolgen',
        ...(options.authorizationServers?.length ? { authorization_servers: [...options.authorizationServers] } : {}),
        ...(options.scopesSupported?.length ? { scopes_supported: [...options.scopesSupported] } : {}),
      };
      res
        .writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
        .end(JSON.stringify(document));
      return true;
    },
    async authenticate(req, res) {
      const gate = requireBearerAuth({
        verifier: options.verifier,
        resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(resource(req))),
        ...(options.requiredScopes ? { requiredScopes: [...options.requiredScopes] } : {}),
      });
      const headers = new Headers();
      const authorization = req.headers.authorization;
      if (authorization) headers.set('authorization', authorization);
      const verdict = await gate(new Request(`http://localhost${endpoint}`, { headers }));
      if (!(verdict instanceof Response)) return verdict;
      res.writeHead(verdict.status, Object.fromEntries(verdict.headers)).end(await verdict.text());
      return null;
    },
  };
}
