/**
 * An API operation's success statuses as its pin lists them (`200`, `201`, a range `2XX`, or
 * `default` when it is the only one): what the runtime takes as a success, and what the build lets a
 * test's stub answer. Here because both read them the same way.
 */

/**
 * Whether a status is one of the operation's success responses.
 *
 * @example isSuccessStatus(204, ['200', '2XX']) // true
 */
export function isSuccessStatus(status: number, success: readonly string[]): boolean {
  const text = String(status);
  return success.some(
    (key) =>
      key === text || (/^[1-5]XX$/i.test(key) && key[0] === text[0]) || (key === 'default' && success.length === 1),
  );
}

/**
 * The first success key as a status: `201` as it is, a range `2XX` as 200, `default` as 200.
 *
 * @example firstSuccessStatus(['201', '2XX']) // 201
 */
export function firstSuccessStatus(success: readonly string[]): number {
  const first = success[0] ?? '';
  if (/^\d{3}$/.test(first)) return Number(first);
  return /^[1-5]XX$/i.test(first) ? Number(first[0]) * 100 : 200;
}
