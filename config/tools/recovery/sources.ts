/** In-memory data sources for the error-recovery example: a primary that only knows some topics. */
const PRIMARY: Record<string, string[]> = { weather: ['sunny', 'rain'], news: ['election', 'markets'] };
const ARCHIVE: Record<string, string[]> = { ...PRIMARY, history: ['1066', '1492'] };

export function primaryData(input: { query: string }): { results: string[] } {
  const results = PRIMARY[input.query];
  if (!results) throw new Error(`primary source has no data for '${input.query}'`);
  return { results };
}

export function fallbackData(input: { query: string }): { results: string[] } {
  return { results: ARCHIVE[input.query] ?? [] };
}

export function processResults(input: { data: string[] }): { summary: string; count: number } {
  return { summary: input.data.join(', '), count: input.data.length };
}
