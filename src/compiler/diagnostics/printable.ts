/**
 * Text a user wrote, made safe to print into a terminal. A name may hold control characters (an
 * escape sequence recolours or clears the screen, a carriage return overwrites the line, a bidi
 * override reorders it); printed raw they do that, so each is shown as a JSON-style escape instead.
 */

// eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escape = (char: string) => SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * The text with every control character escaped as JSON would write it, and everything else as it is.
 *
 * @example printable('greet\u001b[2J') // 'greet\\u001b[2J'
 */
export function printable(text: string): string {
  return text.replace(CONTROL, escape);
}

/** What JSON.stringify leaves raw in a string: DEL, C1 controls, U+2028, U+2029 and the bidirectional overrides. */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (as JSON.stringify writes it, indented or not) made safe to print: the characters it left
 * raw in strings escaped as well, so that it still parses to the same value. Its own line breaks stay.
 *
 * @example printableJson(JSON.stringify({ a: 'x\u202e' })) // '{"a":"x\\u202e"}'
 */
export function printableJson(json: string): string {
  return json.replace(RAW_IN_JSON, escape);
}
