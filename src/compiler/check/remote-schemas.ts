/**
 * The parts of a remote tool's pinned schemas the checks skip (`resolve/pinned-schemas.ts`), said once
 * per tool, at the first of them in the lock, and only for a tool the project uses: a server's other
 * tools are none of its business.
 */
import { formatPath } from '../../language/path.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Catalogue } from '../resolve/catalogue.js';
import { calleesOf } from './callees.js';

/** At most this many parts are named in the message; the rest are counted. */
const SHOWN = 3;

/**
 * One warning per remote tool a composite calls, falls back to, allows next or stubs, whose schemas
 * have parts the checks skip; keyed by that tool's name.
 *
 * @example checkRemoteSchemas(catalogue)[0]?.diagnostic.code // 'TG5024'
 */
export function checkRemoteSchemas(catalogue: Catalogue): { tool: string; diagnostic: Diagnostic }[] {
  const used = new Set<string>();
  for (const { document } of catalogue.entries()) {
    for (const name of calleesOf(document)) used.add(name);
    for (const example of [...(document.examples ?? []), ...(document.error_scenarios ?? [])])
      for (const name of Object.keys(example.stubs ?? {})) used.add(name);
  }
  const found: { tool: string; diagnostic: Diagnostic }[] = [];
  for (const entry of catalogue.remoteEntries()) {
    if (!used.has(entry.name) || entry.skipped.length === 0) continue;
    const features = [...new Set(entry.skipped.map((part) => part.keyword))];
    const parts = entry.skipped.map((part) => formatPath(part.path));
    const more = parts.length - SHOWN;
    const where = entry.lock.locate([...entry.at, ...entry.skipped[0]!.path], { key: true });
    const args = {
      tool: entry.name,
      features: features.join(', '),
      parts: more > 0 ? `${parts.slice(0, SHOWN).join(', ')} and ${more} more` : parts.join(', '),
    };
    const id = entry.via === 'api' ? 'API_SCHEMA_SKIPPED' : 'REMOTE_SCHEMA_SKIPPED';
    found.push({ tool: entry.name, diagnostic: diagnostic(id, args, where) });
  }
  return found;
}
