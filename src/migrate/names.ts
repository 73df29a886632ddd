/**
 * Names migrate derives from a tool's name: its output files and its handler's export. They follow
 * the compiler's own derivation (`gmail_search_messages` → `gmailSearchMessages`).
 */
const RESERVED = new Set('break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await'.split(' '));

function words(name: string): string[] {
  const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean).flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])/));
  return parts.length > 0 ? parts : ['tool'];
}

/** @example typeName('gmail_search_messages') // 'GmailSearchMessages' */
export function typeName(name: string): string {
  const joined = words(name).map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()).join('');
  return /^\d/.test(joined) ? `Tool${joined}` : joined;
}

/** @example handlerName('gmail_search_messages') // 'gmailSearchMessages' */
export function handlerName(name: string): string {
  const type = typeName(name);
  const name_ = type.charAt(0).toLowerCase() + type.slice(1);
  return RESERVED.has(name_) ? `${name_}Tool` : name_;
}

/** The file name (without extension) a tool is written to: `DEST/<slug>.yaml`. @example fileSlug('Gmail Search') // 'gmail_search' */
export function fileSlug(name: string): string {
  return words(name).map((word) => word.toLowerCase()).join('_');
}
