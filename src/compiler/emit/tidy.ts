/** The last touch every emitted TypeScript file gets, whichever template printed it. */

/**
 * Collapses the blank lines that template conditionals leave behind, and ends the file in one newline.
 *
 * @example tidy('a\n\n\n\nb\n\n') // 'a\n\nb\n'
 */
export function tidy(text: string): string {
  return `${text
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n\n(\}\);?)\n*$/, '\n$1')
    .trimEnd()}\n`;
}
