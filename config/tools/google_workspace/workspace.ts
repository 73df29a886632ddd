/**
 * In-memory stand-ins for Gmail and Drive, so the example pipeline runs anywhere. A real app would
 * call the Google APIs here; the YAML and the generated code would not change.
 */
import { createHash } from 'node:crypto';

export interface Message {
  id: string;
  from: string;
  subject: string;
  unread: boolean;
}

const MAILBOX: readonly Message[] = [
  { id: 'm1', from: 'notifications@github.com', subject: 'PR #12 merged', unread: true },
  { id: 'm2', from: 'notifications@github.com', subject: 'Issue #40 opened', unread: false },
  { id: 'm3', from: 'billing@example.com', subject: 'Invoice 2026-11', unread: true },
  { id: 'm4', from: 'notifications@github.com', subject: 'CI failed on main', unread: true },
];

/** Supports `from:ADDRESS`, `is:unread` and plain words (matched in the subject). */
export function gmailSearchMessages(input: { query: string; max_results?: number }): { messages: Message[]; message_count: number } {
  const terms = input.query.split(/\s+/).filter(Boolean);
  const matches = MAILBOX.filter((message) =>
    terms.every((term) => {
      if (term.startsWith('from:')) return message.from === term.slice(5);
      if (term === 'is:unread') return message.unread;
      return message.subject.toLowerCase().includes(term.toLowerCase());
    }),
  ).slice(0, input.max_results ?? 10);
  return { messages: matches, message_count: matches.length };
}

export function driveUploadFile(input: { file_name: string; content: unknown; mime_type: string }): { file_id: string; web_view_link: string; size_bytes: number } {
  const body = typeof input.content === 'string' ? input.content : JSON.stringify(input.content);
  const fileId = `file_${createHash('sha256').update(input.file_name).update(body).digest('hex').slice(0, 12)}`;
  return { file_id: fileId, web_view_link: `https://drive.example.com/file/${fileId}`, size_bytes: Buffer.byteLength(body) };
}

/** A one-line summary of a message, and whether it looks urgent. */
export function summarizeMessage(input: { message: Message }): { id: string; summary: string; urgent: boolean } {
  const { message } = input;
  return { id: message.id, summary: `${message.from}: ${message.subject}`, urgent: /failed|urgent|down/i.test(message.subject) };
}

/** Sends an alert (to an in-memory outbox in this example). */
export const outbox: string[] = [];
export function sendAlert(input: { text: string }): { sent: boolean; position: number } {
  outbox.push(input.text);
  return { sent: true, position: outbox.length };
}
