/**
 * Which YAML files under the config dir are tools: `include` and `exclude` globs, relative to the
 * config dir, with `**` (any depth), `*` (within a name), `?` and `{a,b}`.
 */

/**
 * A matcher for one glob.
 *
 * @example globMatcher('docker/**')('docker/compose.yml') // true
 */
export function globMatcher(glob: string): (relativePath: string) => boolean {
  const pattern = new RegExp(`^${globSource(glob.replace(/^\.\//, ''))}$`);
  return (file) => pattern.test(file);
}

function globSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i]!;
    if (char === '*' && glob[i + 1] === '*') {
      // `**/` matches any number of folders, none included; a trailing `**` matches everything below.
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:[^/]*/)*' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else if (char === '{') {
      const close = glob.indexOf('}', i);
      if (close < 0) out += '\\{';
      else {
        out += `(?:${glob
          .slice(i + 1, close)
          .split(',')
          .map(globSource)
          .join('|')})`;
        i = close;
      }
    } else out += char.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return out;
}

/** Whether a file (relative to the config dir, `/`-separated) is selected by the include and exclude globs. */
export function selectedBy(
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): (relativePath: string) => boolean {
  const included = (include ?? []).map(globMatcher);
  const excluded = (exclude ?? []).map(globMatcher);
  return (file) =>
    (included.length === 0 || included.some((matches) => matches(file))) && !excluded.some((matches) => matches(file));
}
