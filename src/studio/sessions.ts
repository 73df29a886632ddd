/**
 * Who may use the studio, and what a state-changing request must carry. A one-time login token (in
 * the URL `toolgen studio` prints) becomes a session cookie, `HttpOnly` and `SameSite=Strict`, and is
 * spent; each session has a CSRF token of its own that every form posts back. Without a login token
 * (the handler mounted in an app, which authenticates) a session is opened on the first request, for
 * its CSRF token. Sessions are bounded: the oldest goes first, and each lasts a lifetime from its
 * start (8 hours unless told), its cookie as long; then the browser signs in again.
 *
 * A token the user gives (`toolgen studio --token`, for a host beyond loopback) is not spent: it signs
 * in every browser that presents it. The token `toolgen studio` makes itself is spent by its first use.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export interface Session {
  readonly id: string;
  readonly csrf: string;
  /** When it stops being accepted, in ms since the epoch. */
  readonly expires: number;
}

export interface SessionOptions {
  /** How long a session lasts from its start, in ms (default 8 hours). */
  readonly lifetimeMs?: number | undefined;
  /** Whether the login token signs in any number of browsers (a token the user gave) rather than one. */
  readonly reusable?: boolean | undefined;
  readonly now?: (() => number) | undefined;
}

/** How long a session lasts unless told: a working day. */
export const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;

const COOKIE = 'toolgen_studio';
const MAX_SESSIONS = 100;

export class Sessions {
  /** Whether every request needs the session cookie the login token turns into. */
  readonly guarded: boolean;
  #loginToken: string | null;
  readonly #sessions = new Map<string, Session>();
  readonly #lifetimeMs: number;
  readonly #reusable: boolean;
  readonly #now: () => number;

  constructor(loginToken: string | null, options: SessionOptions = {}) {
    this.#loginToken = loginToken;
    this.guarded = loginToken !== null;
    this.#lifetimeMs = options.lifetimeMs ?? SESSION_LIFETIME_MS;
    this.#reusable = options.reusable === true;
    this.#now = options.now ?? Date.now;
  }

  /** A new session for the login token, which is spent unless reusable; null for any other token, or once it is spent. */
  login(token: string): Session | null {
    if (this.#loginToken === null || !sameSecret(token, this.#loginToken)) return null;
    if (!this.#reusable) this.#loginToken = null;
    return this.open();
  }

  open(): Session {
    const session = { id: secret(), csrf: secret(), expires: this.#now() + this.#lifetimeMs };
    this.#sessions.set(session.id, session);
    if (this.#sessions.size > MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    return session;
  }

  /** The session a request's cookie names, while it lasts. */
  of(cookieHeader: string | null): Session | undefined {
    const id = cookieValue(cookieHeader, COOKIE);
    const session = id === undefined ? undefined : this.#sessions.get(id);
    if (session && session.expires <= this.#now()) {
      this.#sessions.delete(session.id);
      return undefined;
    }
    return session;
  }

  /** The `Set-Cookie` value of a session: the browser drops it when the session ends. */
  cookie(session: Session, path: string): string {
    // To the nearest second: a session made in this request has its whole lifetime, whatever the clock read since.
    const maxAge = Math.max(0, Math.round((session.expires - this.#now()) / 1000));
    return `${COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=${path || '/'}; Max-Age=${maxAge}`;
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
