/**
 * The bearer tokens `toolgen serve --http` accepts: a JSON array in a file (`--tokens FILE`) and/or in
 * the environment (`TOOLGEN_SERVE_TOKENS`), each entry a token (or its SHA-256) with its user and scopes.
 *
 *   [{ "token": "…", "user": "alice", "scopes": ["gmail.read"], "expires_at": "2027-01-01T00:00:00Z" },
 *    { "sha256": "<hex of the token's SHA-256>", "user": "ci", "scopes": [] }]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { StaticToken } from '../serve/index.js';
import { UsageError } from './exit.js';

export const TOKENS_ENV = 'TOOLGEN_SERVE_TOKENS';

/**
 * The tokens of the file and the environment; empty when neither gives any.
 *
 * @example readTokens(process.cwd(), 'tokens.json', process.env)
 */
export function readTokens(root: string, file: string | null, env: NodeJS.ProcessEnv): StaticToken[] {
  const tokens: StaticToken[] = [];
  if (file !== null) {
    let text: string;
    try {
      text = readFileSync(path.resolve(root, file), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --tokens ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    tokens.push(...parseTokens(text, `--tokens ${file}`));
  }
  const fromEnv = env[TOKENS_ENV];
  if (fromEnv) tokens.push(...parseTokens(fromEnv, TOKENS_ENV));
  const seen = new Set<string>();
  for (const entry of tokens) {
    const key = entry.sha256 ?? entry.token!;
    if (seen.has(key)) throw new UsageError(`a token is given twice (user '${entry.user}')`);
    seen.add(key);
  }
  return tokens;
}

/** One source's entries, each checked; `where` names the source in errors. */
export function parseTokens(text: string, where: string): StaticToken[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(parsed)) throw new UsageError(`${where} must be a JSON array of { token, user, scopes }`);
  return parsed.map((entry: unknown, index) => parseEntry(entry, `${where}, entry ${index + 1}`));
}

function parseEntry(entry: unknown, where: string): StaticToken {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new UsageError(`${where}: must be an object { token, user, scopes }`);
  const { token, sha256, user, scopes, expires_at: expires, ...rest } = entry as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new UsageError(`${where}: unknown field '${unknown[0]}' (fields: token, sha256, user, scopes, expires_at)`);
  if ((token === undefined) === (sha256 === undefined))
    throw new UsageError(`${where}: give either token or sha256 (the token's SHA-256, hex)`);
  if (token !== undefined && (typeof token !== 'string' || token.length < 16))
    throw new UsageError(`${where}: token must be a string of at least 16 characters`);
  if (sha256 !== undefined && (typeof sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha256)))
    throw new UsageError(`${where}: sha256 must be 64 hex digits`);
  if (typeof user !== 'string' || user.trim() === '') throw new UsageError(`${where}: user must be a non-empty string`);
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string'))
    throw new UsageError(`${where}: scopes must be an array of permission names ([] for none)`);
  let expiresAt: number | undefined;
  if (expires !== undefined) {
    const at = typeof expires === 'string' ? Date.parse(expires) : Number.NaN;
    if (Number.isNaN(at)) throw new UsageError(`${where}: expires_at must be an ISO date-time`);
    expiresAt = Math.floor(at / 1000);
  }
  return {
    ...(token !== undefined ? { token: token as string } : { sha256: (sha256 as string).toLowerCase() }),
    user,
    scopes: scopes as string[],
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}
