/**
 * The journal's line format: `<crc32 of the JSON, 8 hex digits> <the record as JSON>\n`. One line is
 * one `write()`, so a crash leaves at most a torn last line; the checksum tells a torn or garbled
 * line from a whole one. JSON never holds a raw newline, so lines split cleanly.
 */
import { DurableRunError } from './errors.js';
import type { JournalRecord } from './records.js';

const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 (IEEE) of a string's UTF-8 bytes. @example crc32('hello') // 0x3610a686 */
export function crc32(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  let crc = -1;
  for (let i = 0; i < bytes.length; i += 1) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** @example encodeRecord({ type: 'end', result }) // '1c291ca3 {"type":"end",…}\n' */
export function encodeRecord(record: JournalRecord): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

export interface DecodedJournal {
  readonly records: JournalRecord[];
  /** Bytes of whole, valid lines from the start: where a torn tail begins. */
  readonly validBytes: number;
  /** Whether anything followed the last valid line (a torn write, to be cut off). */
  readonly tornTail: boolean;
}

/**
 * Reads a journal. A last line without its newline, or whose checksum fails, is a torn tail: reported,
 * not returned. A bad line before the last is corruption, not a crash, and is refused.
 */
export function decodeJournal(bytes: Buffer, name: string): DecodedJournal {
  const records: JournalRecord[] = [];
  let offset = 0;
  let line = 1;
  while (offset < bytes.length) {
    const end = bytes.indexOf(0x0a, offset);
    if (end < 0) return { records, validBytes: offset, tornTail: true };
    const record = decodeLine(bytes.toString('utf8', offset, end));
    if (record === null) {
      if (end + 1 >= bytes.length) return { records, validBytes: offset, tornTail: true };
      throw new DurableRunError(
        'corrupt_journal',
        `the journal of run '${name}' is damaged at line ${line}: its checksum does not match, and whole lines follow it`,
      );
    }
    records.push(record);
    offset = end + 1;
    line += 1;
  }
  return { records, validBytes: offset, tornTail: false };
}

function decodeLine(text: string): JournalRecord | null {
  if (text.length < 10 || text[8] !== ' ') return null;
  const json = text.slice(9);
  if (Number.parseInt(text.slice(0, 8), 16) !== crc32(json)) return null;
  try {
    return JSON.parse(json) as JournalRecord;
  } catch {
    return null;
  }
}
