/**
 * Who may use the studio, and what a state-changing request must carry. A one-time login token (in
 * the URL `toolgen studio` prints) becomes a session cookie, `HttpOnly` and `SameSite=Strict`, and is
 * spent; each session has a CSRF token of its own that every form posts back. Without a login token
 * (the handler mounted in an app, which authenticates) a session is opened on the first request, for
 * its CSRF token. Sessions are bounded: the oldest goes first.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export interface Session {
  readonly id: string;
  readonly csrf: string;
}

const COOKIE = 'toolgen_studio';
const MAX_SESSIONS = 100;

export class Sessions {
  /** Whether every request needs the session cookie the login token turns into. */
  readonly guarded: boolean;
  #loginToken: string | null;
  readonly #sessions = new Map<string, Session>();

  constructor(loginToken: string | null) {
    this.#loginToken = loginToken;
    this.guarded = loginToken !== null;
  }

  /** A new session for the login token, which is spent; null for any other token, or once it is spent. */
  login(token: string): Session | null {
    if (this.#loginToken === null || !sameSecret(token, this.#loginToken)) return null;
    this.#loginToken = null;
    return this.open();
  }

  open(): Session {
    const session = { id: secret(), csrf: secret() };
    this.#sessions.set(session.id, session);
    if (this.#sessions.size > MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    return session;
  }

  /** The session a request's cookie names. */
  of(cookieHeader: string | null): Session | undefined {
    const id = cookieValue(cookieHeader, COOKIE);
    return id === undefined ? undefined : this.#sessions.get(id);
  }

  /** The `Set-Cookie` value of a session. */
  cookie(session: Session, path: string): string {
    return `${COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=${path || '/'}`;
  }
}

/** Whether a form's CSRF token is the session's. */
export function csrfMatches(session: Session, given: string | null): boolean {
  return given !== null && sameSecret(given, session.csrf);
}

/** A random token: 32 bytes, base64url. */
export function secret(): string {
  return randomBytes(32).toString('base64url');
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}
