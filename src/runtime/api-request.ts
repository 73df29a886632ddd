/**
 * An API operation's request from a step's input, by the OpenAPI rules for serialising parameters
 * (https://spec.openapis.org/oas/v3.1.0#style-values): path parameters substituted and
 * percent-encoded (style `simple`, `label`, `matrix`), query parameters by `form` with `explode`
 * unless the document says otherwise (`spaceDelimited`, `pipeDelimited`, `deepObject` too), header
 * parameters by `simple`, cookies as `name=value` pairs, and the body by its content type
 * (`api-body.ts`).
 */
import { bodyWriter } from './api-body.js';
import { RemoteCallError } from './remote.js';

/** A parameter of an operation, as its document declares it. */
export interface ApiParameter {
  /** The name in the document: what goes on the wire. */
  readonly name: string;
  /** The input property it is read from (usually `name`). */
  readonly key: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  /** As the document says; OpenAPI's default for where it is when absent (`simple`, `form`). */
  readonly style?: string;
  readonly explode?: boolean;
}

/** What of an operation (`ApiOperationSpec`) its request is made from. */
export interface RequestShape {
  readonly api: string;
  readonly operation: string;
  readonly path: string;
  readonly parameters: readonly ApiParameter[];
  readonly body: { readonly contentType: string } | null;
}

/** The parts of a request an input makes; the API, the signal and the idempotency key are added by the caller. */
export interface BuiltRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** Makes an operation's request from a step's input. */
export type RequestBuilder = (input: unknown) => BuiltRequest;

/**
 * The request maker of an operation: what does not depend on the input (the path template's pieces,
 * where each parameter goes, how the body is written) is worked out once, here, not at every call.
 *
 * @example requestBuilder(getPet)({ petId: 'a b', fields: ['name', 'tag'] }).path // '/pets/a%20b?fields=name&fields=tag'
 */
export function requestBuilder(spec: RequestShape): RequestBuilder {
  const inPath = spec.parameters.filter((parameter) => parameter.in === 'path');
  const elsewhere = spec.parameters.filter((parameter) => parameter.in !== 'path');
  const template = pathTemplate(spec.path, inPath);
  const body =
    spec.body === null
      ? null
      : {
          contentType: spec.body.contentType,
          text: bodyWriter(`${spec.api}/${spec.operation}`, spec.body.contentType),
        };
  const missing = (parameter: ApiParameter) =>
    new RemoteCallError(
      'HTTP_MISSING_PARAMETER',
      `'${spec.api}/${spec.operation}': the path parameter '${parameter.name}' has no value`,
      // The same input makes the same request: another attempt cannot help, and nothing was sent.
      { retryable: false },
    );
  return (input) => {
    const values = (typeof input === 'object' && input !== null ? input : {}) as Readonly<Record<string, unknown>>;
    const texts: string[] = [];
    for (const parameter of inPath) {
      const value = valueOf(values, parameter.key);
      if (value === undefined || value === null) throw missing(parameter);
      texts.push(pathValue(parameter, value));
    }
    let path = '';
    for (const piece of template) path += typeof piece === 'string' ? piece : texts[piece];
    // `.` and `..` are not encoded, and a URL reads such a segment as a step up the path: refused.
    if (texts.some((text) => text.includes('.')) && /(^|\/)\.{1,2}(\/|$)/.test(path))
      throw badParameter(
        `'${spec.api}/${spec.operation}': its path would be ${path}, and a URL reads a segment '.' or '..' as a step up the path: the request would reach another resource`,
      );
    let query = '';
    const headers: Record<string, string> = {};
    let cookies = '';
    for (const parameter of elsewhere) {
      const value = valueOf(values, parameter.key);
      if (value === undefined || value === null) continue;
      if (parameter.in === 'query')
        for (const pair of queryPairs(parameter, value)) query += `${query === '' ? '?' : '&'}${pair}`;
      else if (parameter.in === 'header') {
        const text = simple(value, parameter.explode ?? false, String);
        // A line break would end the header (fetch refuses it, as it does what is not Latin-1).
        if (!HEADER_VALUE.test(text))
          throw badParameter(
            `'${spec.api}/${spec.operation}': the header parameter '${parameter.name}' holds a line break, a control character or a character outside Latin-1, which no header can carry`,
          );
        headers[parameter.name.toLowerCase()] = text;
      } else
        cookies += `${cookies === '' ? '' : '; '}${parameter.name}=${encodeURIComponent(simple(value, false, String))}`;
    }
    if (cookies !== '') headers['cookie'] = cookies;
    const sent = valueOf(values, 'body');
    if (body === null || sent === undefined) return { path: path + query, headers };
    headers['content-type'] = body.contentType;
    return { path: path + query, headers, body: body.text(sent) };
  };
}

/** What a header's value may hold: tabs and Latin-1 text, no other control character (RFC 9110's field-value). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** An input the request cannot be made from: nothing is sent, and sending it again cannot help. */
function badParameter(message: string): RemoteCallError {
  return new RemoteCallError('HTTP_BAD_PARAMETER', message, { retryable: false });
}

/** The own field `key` of the input; an inherited one (`constructor`) is no value. */
function valueOf(values: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(values, key) ? values[key] : undefined;
}

/**
 * A path template as its pieces: the text between templates, and for each `{name}` a path
 * parameter declares, that parameter's index in `parameters`; a template no parameter names stays text.
 */
function pathTemplate(path: string, parameters: readonly ApiParameter[]): (string | number)[] {
  const pieces: (string | number)[] = [];
  let text = '';
  for (const part of path.split(/(\{[^{}]*\})/)) {
    const index = part.startsWith('{') ? parameters.findIndex((parameter) => `{${parameter.name}}` === part) : -1;
    if (index === -1) text += part;
    else {
      if (text !== '') pieces.push(text);
      pieces.push(index);
      text = '';
    }
  }
  if (text !== '' || pieces.length === 0) pieces.push(text);
  return pieces;
}

/** A path parameter's text in the path, percent-encoded. */
function pathValue(parameter: ApiParameter, value: unknown): string {
  const explode = parameter.explode ?? false;
  const encoded = encodeURIComponent;
  switch (parameter.style) {
    case 'label': {
      const joined = simple(value, explode, encoded);
      return `.${explode ? joined.split(',').join('.') : joined}`;
    }
    case 'matrix':
      return matrix(parameter.name, value, explode);
    default:
      return simple(value, explode, encoded);
  }
}

/** `simple` style: `a,b` for an array, `k,v,k2,v2` for an object (`k=v,k2=v2` exploded). */
function simple(value: unknown, explode: boolean, encode: (text: string) => string): string {
  if (Array.isArray(value)) return value.map((item) => encode(scalar(item))).join(',');
  if (isObject(value))
    return Object.entries(value)
      .map(([key, item]) =>
        explode ? `${encode(key)}=${encode(scalar(item))}` : `${encode(key)},${encode(scalar(item))}`,
      )
      .join(',');
  return encode(scalar(value));
}

function matrix(name: string, value: unknown, explode: boolean): string {
  const encode = encodeURIComponent;
  if (Array.isArray(value))
    return explode
      ? value.map((item) => `;${name}=${encode(scalar(item))}`).join('')
      : `;${name}=${value.map((item) => encode(scalar(item))).join(',')}`;
  if (isObject(value))
    return explode
      ? Object.entries(value)
          .map(([key, item]) => `;${encode(key)}=${encode(scalar(item))}`)
          .join('')
      : `;${name}=${simple(value, false, encode)}`;
  return `;${name}=${encode(scalar(value))}`;
}

/** A query parameter's `name=value` pairs, encoded. */
function queryPairs(parameter: ApiParameter, value: unknown): string[] {
  const encode = encodeURIComponent;
  const name = encode(parameter.name);
  const style = parameter.style ?? 'form';
  const explode = parameter.explode ?? style === 'form';
  if (style === 'deepObject' && isObject(value))
    return Object.entries(value).map(([key, item]) => `${name}%5B${encode(key)}%5D=${encode(scalar(item))}`);
  if (Array.isArray(value)) {
    if (explode) return value.map((item) => `${name}=${encode(scalar(item))}`);
    const separator = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '%7C' : ',';
    return [`${name}=${value.map((item) => encode(scalar(item))).join(separator)}`];
  }
  if (isObject(value))
    return explode
      ? Object.entries(value).map(([key, item]) => `${encode(key)}=${encode(scalar(item))}`)
      : [`${name}=${simple(value, false, encode)}`];
  return [`${name}=${encode(scalar(value))}`];
}

/** An item's text: a string as it is, anything else as JSON (a number, a boolean, a nested object). */
function scalar(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
