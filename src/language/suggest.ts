/**
 * Suggestions for misspelled names (tools, steps, parameters, outputs, servers, commands): the name
 * meant, and the one place "did you mean" is worded, for the compiler's diagnostics and the runtime's
 * errors alike.
 */

/**
 * The candidate nearest to `name`, when it is near enough to be a typo.
 *
 * @example closestName('gmail_serch', ['gmail_search', 'drive_upload']) // 'gmail_search'
 */
export function closestName(name: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The question that offers a name; a suggestion to type a command is quoted as code (`` ` ``). The
 * caller escapes what a terminal must not print raw.
 *
 * @example didYouMean('echo') // "did you mean 'echo'?"
 */
export function didYouMean(suggestion: string, quote: "'" | '`' = "'"): string {
  return `did you mean ${quote}${suggestion}${quote}?`;
}

/**
 * A message with its suggestion, when there is one.
 *
 * @example withSuggestion("no tool named 'ecko'", 'echo') // "no tool named 'ecko'; did you mean 'echo'?"
 */
export function withSuggestion(message: string, suggestion: string | null | undefined, quote: "'" | '`' = "'"): string {
  return suggestion == null ? message : `${message}; ${didYouMean(suggestion, quote)}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
