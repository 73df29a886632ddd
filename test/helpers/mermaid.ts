/**
 * Mermaid's own parser, in Node 20. `mermaid` 11 (12 needs Node 22) parses without a browser, but its
 * sanitiser (DOMPurify) binds to a global `window` when it loads: a jsdom window is there while
 * mermaid is imported, and only then. `mermaid.parse` runs the same flowchart grammar as a render.
 */
import { JSDOM } from 'jsdom';

type Mermaid = typeof import('mermaid').default;

let loading: Promise<Mermaid> | undefined;

function load(): Promise<Mermaid> {
  loading ??= (async () => {
    const global = globalThis as { window?: unknown };
    const dom = new JSDOM('');
    global.window = dom.window;
    try {
      return (await import('mermaid')).default;
    } finally {
      delete global.window;
    }
  })();
  return loading;
}

/**
 * The diagram type Mermaid reads in `source` (`flowchart-v2` for a flowchart); throws Mermaid's parse
 * error when it is not valid.
 *
 * @example await parseMermaid('flowchart TD\n  a --> b') // 'flowchart-v2'
 */
export async function parseMermaid(source: string): Promise<string> {
  const mermaid = await load();
  const parsed = await mermaid.parse(source);
  // parse() answers false instead of throwing only when asked to (suppressErrors): never here.
  if (!parsed) throw new Error('mermaid.parse rejected the diagram');
  return parsed.diagramType;
}
