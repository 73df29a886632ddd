/**
 * The one order of names toolgen sorts by wherever the order is seen (files found, the lock's keys,
 * lists printed): the same on every machine, whatever its locale.
 */

/**
 * Strings by UTF-16 code unit, as `<` compares them: not by locale (`localeCompare` differs between
 * machines), and not by code point (a character beyond U+FFFF sorts before U+FF00).
 *
 * @example ['b', 'B', 'a'].sort(byCodeUnits) // ['B', 'a', 'b']
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
