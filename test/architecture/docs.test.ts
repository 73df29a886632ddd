/**
 * The documentation as a whole: README.md is the front page and its index links every page of
 * docs/, every relative link and anchor in them leads somewhere, and every statement the tests read
 * (test/helpers/docs.ts) is still where they read it.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATEMENTS, readDoc } from '../helpers/docs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = readdirSync(path.join(ROOT, 'docs'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => `docs/${file}`)
  .sort();
const FILES = ['README.md', ...PAGES];

/** A file's lines outside fenced code blocks, with inline code removed (a link inside it is text). */
function prose(file: string): string[] {
  let fenced = false;
  const lines: string[] = [];
  for (const line of readDoc(file).split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) lines.push(line.replace(/(`+)[\s\S]*?\1/g, ''));
  }
  return lines;
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, blanks as `-`, repeats numbered. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of readDoc(file).split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || !/^#{1,6} /.test(line)) continue;
    const slug = line
      .replace(/^#+ /, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replaceAll('`', '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Every link and image target in a file's prose that is not a URL. */
function relativeLinks(file: string): string[] {
  return prose(file)
    .flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!))
    .filter((target) => !/^[a-z]+:/.test(target));
}

describe('the documentation', () => {
  it("keeps the README's two commands first", () => {
    expect(readDoc('README.md').startsWith(STATEMENTS.firstCommands.text)).toBe(true);
  });

  it.each(Object.entries(STATEMENTS))('still says what the tests read: %s', (_, { file, text }) => {
    expect(readDoc(file), `${file} no longer says ${JSON.stringify(text)}`).toContain(text);
  });

  it("links every page of docs/ from the README's index, each once, and no page that is not there", () => {
    const index = readDoc('README.md').slice(readDoc('README.md').indexOf('\n## The reference\n'));
    const linked = [...index.matchAll(/^- \[[^\]]+\]\((docs\/[^)#]+\.md)\): \S/gm)].map((match) => match[1]!);
    expect(linked.slice().sort()).toEqual(PAGES);
    expect(new Set(linked).size).toBe(linked.length);
  });

  it.each(FILES)('%s: every relative link leads to a file, and every anchor to a heading there', (file) => {
    const broken: string[] = [];
    for (const target of relativeLinks(file)) {
      const [where, anchor] = target.split('#') as [string, string | undefined];
      const linked = where === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
      const absolute = path.join(ROOT, linked);
      if (!existsSync(absolute)) broken.push(`${target}: no file ${linked}`);
      else if (anchor !== undefined && (statSync(absolute).isDirectory() || !anchors(linked).has(anchor)))
        broken.push(`${target}: no heading #${anchor} in ${linked}`);
    }
    expect(broken).toEqual([]);
  });
});
