/**
 * How `toolgen mcp diff` and `toolgen api diff` word the drift of one source of pins (a server, an
 * API): the same lines for both, in the words of its kind (a server's tools, an API's operations).
 */
import { printable } from '../compiler/diagnostics/printable.js';
import { hasDrift, type PinDrift } from '../remote/lock/drift.js';
import { plural } from './mcp-command.js';

/** The composites that use each pin, by `<source>/<pin>`. */
export type PinUses = ReadonlyMap<string, readonly string[]>;

/** What one source's pins came to: its drift (null when it could not be compared) and the pins edited by hand. */
export interface PinsReport<F extends string> {
  readonly name: string;
  readonly drift: PinDrift<F> | null;
  readonly tampered: readonly string[];
  /** The drift, once the source was read and compared: `unchanged`, `drifted` or `tampered`. */
  readonly status: string;
}

/** The words of a kind of source: `tool` and `listed` for a server, `operation` and `in the document` for an API. */
export interface PinWords {
  readonly pin: string;
  readonly asPinned: string;
}

/** A line per pin edited by hand: the build refuses it. */
export function tamperedLines(report: PinsReport<string>): string[] {
  return report.tampered.map(
    (pin) => `  ! ${printable(`${report.name}/${pin}`)}: its pin does not match its hash (the build reports TG1009)`,
  );
}

/**
 * The lines of a source that was compared: `no drift`, pins edited by hand, or what was added,
 * changed and removed, each with the composites that use it. `heading` is its name and what it said
 * of itself; `count` how many pins it has now.
 */
export function driftLines(
  report: PinsReport<string>,
  heading: string,
  count: number,
  words: PinWords,
  uses: PinUses,
): string[] {
  const drift = report.drift!;
  const tampered = tamperedLines(report);
  const pins = plural(count, words.pin);
  if (report.status === 'unchanged') return [`${heading}: no drift (${pins})`];
  if (report.status === 'tampered' && !hasDrift(drift))
    return [`${heading}: the lock's pins were edited by hand (${pins} ${words.asPinned}, as pinned)`, ...tampered];
  const usedBy = (pin: string) => {
    const users = uses.get(`${report.name}/${pin}`) ?? [];
    return users.length === 0 ? '' : `; used by ${users.join(', ')}`;
  };
  const counts = [
    drift.added.length > 0 ? `${drift.added.length} added` : null,
    drift.changed.length > 0 ? `${drift.changed.length} changed` : null,
    drift.removed.length > 0 ? `${drift.removed.length} removed` : null,
  ].filter((part) => part !== null);
  return [
    `${heading}: ${counts.join(', ')}${report.status === 'tampered' ? "; the lock's pins were edited by hand" : ''}`,
    ...tampered,
    ...drift.added.map((pin) => `  + ${printable(`${report.name}/${pin}`)}`),
    ...drift.changed.map(
      (change) =>
        `  ~ ${printable(`${report.name}/${change.tool}`)}: ${change.fields.join(', ')} changed${usedBy(change.tool)}`,
    ),
    ...drift.removed.map((pin) => `  - ${printable(`${report.name}/${pin}`)}: removed${usedBy(pin)}`),
  ];
}

/** The pins a composite uses whose breaking fields changed, or that vanished: what fails the diff. */
export function brokenUses<F extends string>(report: PinsReport<F>, uses: PinUses, breaking: ReadonlySet<F>): string[] {
  if (report.drift === null) return [];
  const used = (pin: string) => (uses.get(`${report.name}/${pin}`) ?? []).length > 0;
  const changed = report.drift.changed.filter(
    (change) => used(change.tool) && change.fields.some((field) => breaking.has(field)),
  );
  return [...changed.map((change) => change.tool), ...report.drift.removed.filter(used)].map(
    (pin) => `${report.name}/${pin}`,
  );
}
