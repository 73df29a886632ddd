/**
 * How an API step's `body` goes on the wire, by the content type the operation's pin gives its
 * request body: JSON for `application/json` and `…+json`; a form for
 * `application/x-www-form-urlencoded` (each field a `name=value` pair, a list a pair per item, as
 * OpenAPI's default `form` style with `explode` has it); for `text/*` a string as it is and any other
 * value as its JSON text; for any other type a string as it is. What cannot be written so (a nested
 * object in a form, an object for `application/xml`, any `multipart/*` body) fails the call before
 * anything is sent, with the code `HTTP_UNSUPPORTED_BODY`, never retried.
 */
import { RemoteCallError } from './remote.js';

/** Writes a body for one operation's content type; throws `HTTP_UNSUPPORTED_BODY` for what it cannot write. */
export type BodyWriter = (body: unknown) => string;

/**
 * The writer of an operation's request body, chosen once by its content type.
 *
 * @example bodyWriter('pets/token', 'application/x-www-form-urlencoded')({ scope: ['a', 'b'], n: 1 }) // 'scope=a&scope=b&n=1'
 */
export function bodyWriter(operation: string, contentType: string): BodyWriter {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return (body) => JSON.stringify(body);
  if (type === 'application/x-www-form-urlencoded') return (body) => formText(operation, body);
  if (type.startsWith('text/')) return (body) => (typeof body === 'string' ? body : JSON.stringify(body));
  if (type.startsWith('multipart/'))
    return () => {
      throw unsupported(
        `'${operation}': its request body is ${type}, which toolgen does not send (it sends JSON, forms as application/x-www-form-urlencoded, text, and other types from a string): call this operation from a function tool of your own`,
      );
    };
  return (body) => {
    if (typeof body === 'string') return body;
    throw unsupported(
      `'${operation}': its request body is ${type}, which toolgen sends only from a string (the body as it goes on the wire), and this body is ${what(body)}`,
    );
  };
}

/** A form: each field's text, a list's items each a pair of the field's name; a string is taken as a form already written. */
function formText(operation: string, body: unknown): string {
  if (typeof body === 'string') return body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw unsupported(
      `'${operation}': a form body (application/x-www-form-urlencoded) is an object of fields, and this body is ${what(body)}`,
    );
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'object')
        throw unsupported(
          `'${operation}': the form field '${name}' holds ${what(item)}, and a form (application/x-www-form-urlencoded) holds text, numbers, booleans and lists of them: pass it as a string (its JSON text, say)`,
        );
      form.append(name, String(item));
    }
  }
  return form.toString();
}

function what(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function unsupported(message: string): RemoteCallError {
  return new RemoteCallError('HTTP_UNSUPPORTED_BODY', message, { retryable: false });
}
