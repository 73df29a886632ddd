/**
 * Paths into JSON values: `results[0].id`, `messages`, `a["odd key"]`.
 * Used by templates (`<< state.results[0].id >>`) and by `map_outputs` sources.
 */
export type PathSegment = string | number;

export interface PathParseError {
  readonly message: string;
  /** Offset in the path text where the problem starts. */
  readonly offset: number;
}

const IDENTIFIER = /[A-Za-z_$][\w$-]*/y;
const INDEX = /\[\s*(\d+)\s*\]/y;
const QUOTED_KEY = /\[\s*"((?:[^"\\]|\\.)*)"\s*\]/y;

/**
 * Parses a path into segments.
 *
 * @example parsePath('results[0].id') // { segments: ['results', 0, 'id'] }
 */
export function parsePath(text: string): { segments: PathSegment[] } | { error: PathParseError } {
  const segments: PathSegment[] = [];
  let offset = 0;
  const readIdentifier = (): boolean => {
    IDENTIFIER.lastIndex = offset;
    const match = IDENTIFIER.exec(text);
    if (!match) return false;
    segments.push(match[0]);
    offset = IDENTIFIER.lastIndex;
    return true;
  };
  if (!readIdentifier()) {
    return { error: { message: `expected a name at the start of '${text}'`, offset } };
  }
  while (offset < text.length) {
    const char = text[offset];
    if (char === '.') {
      offset += 1;
      if (!readIdentifier()) return { error: { message: `expected a name after '.' in '${text}'`, offset } };
      continue;
    }
    if (char === '[') {
      INDEX.lastIndex = offset;
      const index = INDEX.exec(text);
      if (index) {
        segments.push(Number(index[1]));
        offset = INDEX.lastIndex;
        continue;
      }
      QUOTED_KEY.lastIndex = offset;
      const quoted = QUOTED_KEY.exec(text);
      if (quoted) {
        const key = unquote(quoted[1]!);
        if (key === null)
          return {
            error: {
              message: `bad escape in the quoted key ["${quoted[1]}"] of '${text}': a backslash starts a JSON escape (\\\\, \\", \\n, \\uXXXX)`,
              offset,
            },
          };
        segments.push(key);
        offset = QUOTED_KEY.lastIndex;
        continue;
      }
      return { error: { message: `expected [number] or ["key"] in '${text}'`, offset } };
    }
    return { error: { message: `unexpected '${char}' in '${text}'`, offset } };
  }
  return { segments };
}

/** The text of a quoted key, its escapes read as JSON reads them; null when one is not valid JSON. */
function unquote(inner: string): string | null {
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return null;
  }
}

/** What `lookupPath` returns when a segment is missing. */
export const MISSING: unique symbol = Symbol('missing');

/** Reads a path from a value; MISSING when any segment is missing. Allocates nothing: the executor's hot path. */
export function lookupPath(value: unknown, segments: readonly PathSegment[]): unknown {
  let current: unknown = value;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i]!;
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment >= current.length) return MISSING;
      current = current[segment];
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current)) return MISSING;
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return MISSING;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current === undefined ? MISSING : current;
}

/** Reads a path from a value; `found` is false when any segment is missing. */
export function readPath(value: unknown, segments: readonly PathSegment[]): { found: boolean; value: unknown } {
  const found = lookupPath(value, segments);
  return found === MISSING ? { found: false, value: undefined } : { found: true, value: found };
}

/** Prints segments back as a path, the way a user would write it. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
