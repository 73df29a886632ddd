/**
 * Sets of names that share their structure. The data-flow check keeps what is defined at every step;
 * as plain `Set`s, each step copied everything defined before it, and a composite of 10,000 steps took
 * minutes and gigabytes. Here a set is a persistent bit trie over the names' numbers: adding a name
 * copies one path (a few 32-slot nodes), and meeting two sets at a join skips every branch they share.
 */

/** Gives each name a small number, for every set of one composite. */
export class NameTable {
  readonly #numbers = new Map<string, number>();

  /** The name's number, or undefined when no set has held it. */
  numberOf(name: string): number | undefined {
    return this.#numbers.get(name);
  }

  intern(name: string): number {
    let number = this.#numbers.get(name);
    if (number === undefined) {
      number = this.#numbers.size;
      this.#numbers.set(name, number);
    }
    return number;
  }
}

const BITS = 5;
const WIDTH = 1 << BITS;

/** An inner node: 32 children, each a subtree or null (empty), and how many names it holds. */
interface Inner {
  readonly count: number;
  readonly children: readonly Trie[];
}

/** At depth 0 a 32-bit word of members, at depth d > 0 an inner node; null is empty at any depth. */
type Trie = Inner | number | null;

const countOf = (trie: Trie): number => (trie === null ? 0 : typeof trie === 'number' ? popCount(trie) : trie.count);

function popCount(word: number): number {
  let bits = word - ((word >>> 1) & 0x55555555);
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

function inner(children: Trie[]): Inner | null {
  let count = 0;
  for (const child of children) count += countOf(child);
  return count === 0 ? null : { count, children };
}

const slot = (number: number, depth: number): number => (number >>> (BITS * depth)) & (WIDTH - 1);

/** The trie with the given numbers added: each node on their paths copied once. */
function add(trie: Trie, depth: number, numbers: readonly number[]): Trie {
  if (depth === 0) {
    let word = (trie as number | null) ?? 0;
    for (const number of numbers) word |= 1 << (number & (WIDTH - 1));
    return word;
  }
  const children = trie === null ? new Array<Trie>(WIDTH).fill(null) : (trie as Inner).children.slice();
  const bySlot = new Map<number, number[]>();
  for (const number of numbers) {
    const at = slot(number, depth);
    const group = bySlot.get(at);
    if (group) group.push(number);
    else bySlot.set(at, [number]);
  }
  for (const [at, group] of bySlot) children[at] = add(children[at]!, depth - 1, group);
  return inner(children);
}

/** Combines two tries of the same depth child by child; a subtree both share is kept as it is. */
function combine(a: Trie, b: Trie, depth: number, both: boolean): Trie {
  if (a === b) return a;
  if (a === null || b === null) return both ? null : (a ?? b);
  if (depth === 0) {
    const word = both ? (a as number) & (b as number) : (a as number) | (b as number);
    return word === 0 ? null : word;
  }
  const left = (a as Inner).children;
  const right = (b as Inner).children;
  const children = left.map((child, index) => combine(child, right[index]!, depth - 1, both));
  if (children.every((child, index) => child === left[index])) return a;
  if (children.every((child, index) => child === right[index])) return b;
  return inner(children);
}

/** A trie one level deeper holding the same names. */
function deepen(trie: Trie): Trie {
  if (trie === null) return null;
  const children = new Array<Trie>(WIDTH).fill(null);
  children[0] = trie;
  return inner(children);
}

/**
 * An immutable set of names; every operation returns a new set sharing what did not change.
 *
 * @example
 * const table = new NameTable();
 * const a = NameSet.of(table, ['x']).with(['y']);
 * a.has('y'); // true
 * a.intersection(NameSet.of(table, ['y'])).size; // 1
 */
export class NameSet {
  private constructor(
    readonly table: NameTable,
    private readonly root: Trie,
    /** Levels of inner nodes above the words: the set holds numbers below 32 ** (depth + 1). */
    private readonly depth: number,
  ) {}

  static of(table: NameTable, names: Iterable<string> = []): NameSet {
    return new NameSet(table, null, 0).with(names);
  }

  get size(): number {
    return countOf(this.root);
  }

  has(name: string): boolean {
    const number = this.table.numberOf(name);
    return number !== undefined && this.holds(number);
  }

  private holds(number: number): boolean {
    if (number >= WIDTH ** (this.depth + 1)) return false;
    let trie = this.root;
    for (let depth = this.depth; depth > 0 && trie !== null; depth -= 1)
      trie = (trie as Inner).children[slot(number, depth)]!;
    return trie !== null && (((trie as number) >>> (number & (WIDTH - 1))) & 1) === 1;
  }

  with(names: Iterable<string>): NameSet {
    const numbers: number[] = [];
    let largest = -1;
    for (const name of names) {
      const number = this.table.intern(name);
      if (this.holds(number)) continue;
      numbers.push(number);
      largest = Math.max(largest, number);
    }
    if (numbers.length === 0) return this;
    let root = this.root;
    let depth = this.depth;
    for (; largest >= WIDTH ** (depth + 1); depth += 1) root = deepen(root);
    return new NameSet(this.table, add(root, depth, numbers), depth);
  }

  union(other: NameSet): NameSet {
    return this.combine(other, false);
  }

  intersection(other: NameSet): NameSet {
    return this.combine(other, true);
  }

  private combine(other: NameSet, both: boolean): NameSet {
    if (other.table !== this.table) throw new Error('NameSet: sets of two tables');
    let [a, b] = [this.root, other.root];
    const depth = Math.max(this.depth, other.depth);
    for (let d = this.depth; d < depth; d += 1) a = deepen(a);
    for (let d = other.depth; d < depth; d += 1) b = deepen(b);
    const root = combine(a, b, depth, both);
    return root === this.root && depth === this.depth ? this : new NameSet(this.table, root, depth);
  }
}
