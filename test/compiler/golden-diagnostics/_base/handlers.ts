export function echo(input: { message: string }) {
  return { data: input.message };
}

export function count(input: { n: number }) {
  return { n: input.n + 1, items: [{ id: String(input.n) }] };
}

/** For tools whose parameters and returns are beside the point of a case: it takes and returns anything. */
export function loose(input: any): any {
  return input;
}
