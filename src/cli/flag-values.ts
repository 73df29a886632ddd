/** How flags' texts become values: each throws commander's `InvalidArgumentError` (or a `UsageError`) on a bad one. */
import { InvalidArgumentError } from 'commander';
import { UsageError } from './exit.js';

/**
 * `a, b,,c` → `['a', 'b', 'c']`.
 *
 * @example list('read, write') // ['read', 'write']
 */
export function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A whole number of at least 1. */
export function count(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return parsed;
}

/** A number of seconds above 0 (fractions allowed). */
export function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('expected a number of seconds above 0.');
  return parsed;
}

/** A flag given again adds to the list (`--stub a=… --stub b=…`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A port number, 0 for any free port. */
export function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new InvalidArgumentError('expected a port number (0 for any free port).');
  return parsed;
}

/** `--http PORT`: a port number, refused as a usage error. */
export function httpPort(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new UsageError(`--http takes a port number (0 for any free port); got '${value}'`);
  return parsed;
}
