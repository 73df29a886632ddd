/**
 * Text a user wrote, made safe to print into a terminal. A name may hold control characters (an
 * escape sequence recolours or clears the screen, a carriage return overwrites the line, a bidi
 * override reorders it); printed raw they do that, so each is shown as a JSON-style escape instead.
 */

// eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * The text with every control character escaped as JSON would write it, and everything else as it is.
 *
 * @example printable('greet\u001b[2J') // 'greet\\u001b[2J'
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (char) => SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
