// Writing one variable into a config file's text the way git does (config.c:
// git_config_set_multivar_in_file_gently with store_aux, maybe_remove_section, write_section and
// write_pair), so that a file edited by tsgit is byte for byte the file git would leave. The text
// is parsed into events (parse.ts); the entries to replace or remove are picked out of them, and
// the text is spliced around those, every other byte kept. A replacement goes where the last
// match was; a removal takes the entry's line and, when that empties a section no comment sits
// in or before, the section header too; a new entry follows the last entry (or header) of the
// last section of its name, else starts a new section at the end. Texts, names and values are
// binary strings (one char per byte), as in parse.ts.
import { GitError } from '../core/errors.js';
import { fromBinary, parseConfig, type ParsedConfig, type ParsedEntry } from './parse.js';

/** A variable's name as git_config_parse_key reads it. */
export interface VariableName {
  /** The name as given: a new section header and every written key keep its case, as in git. */
  given: string;
  /** Section and key lower-cased, the subsection as given: what entries are matched against. */
  canonical: string;
  /** The length of `section[.subsection]`. */
  baselen: number;
}

const isAlpha = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isKeyChar = (c: string) => isAlpha(c) || (c >= '0' && c <= '9') || c === '-';
/** ASCII lower case, as C's tolower: other bytes stay as they are. */
export const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/**
 * git_config_parse_key. Errors have code 'no-section-or-name' (git's CONFIG_NO_SECTION_OR_NAME, a
 * write's exit status 2) or 'invalid-key' (CONFIG_INVALID_KEY, 1).
 */
export function parseVariableName(name: string): VariableName {
  const shown = fromBinary(name);
  const lastDot = name.lastIndexOf('.');
  if (lastDot <= 0) throw new GitError('config', 'no-section-or-name', `key does not contain a section: ${shown}`);
  if (lastDot === name.length - 1) throw new GitError('config', 'no-section-or-name', `key does not contain variable name: ${shown}`);
  let canonical = '';
  let dot = false;
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '.') dot = true;
    // The section and the key are checked and lower-cased; the subsection between them is not.
    if (!dot || i > lastDot) {
      if (!isKeyChar(c) || (i === lastDot + 1 && !isAlpha(c))) throw new GitError('config', 'invalid-key', `invalid key: ${shown}`);
      canonical += c.toLowerCase();
    } else {
      if (c === '\n') throw new GitError('config', 'invalid-key', `invalid key (newline): ${shown}`);
      canonical += c;
    }
  }
  return { given: name, canonical, baselen: lastDot };
}

export interface VariableWrite {
  name: VariableName;
  /** The new value; null removes. */
  value: string | null;
  /**
   * Which of the variable's present values the write replaces or removes (git's value-pattern,
   * given the value or null for a key without `=`); all of them when absent.
   */
  matches?: (value: string | null) => boolean;
  /** Replace or remove every match (--replace-all, --unset-all); else a second one refuses the write. */
  all: boolean;
}

/**
 * The new text, or why git would write nothing (CONFIG_NOTHING_SET): no value to remove, or
 * several where one was expected (git warns "<name> has multiple values" for that one).
 */
export type WriteResult = { text: string } | { refused: 'not-found' | 'multiple-values' };

/** Applies `write` to `text` (the file's bytes, '' for a missing file); `file` names it in parse errors. */
export function writeVariable(text: string, file: string, write: VariableWrite): WriteResult {
  const parsed = parseConfig(text, file);
  const { events } = parsed;
  const found = findMatches(parsed, write);
  const { seen, keySeen, sectionSeen, keysSection } = found;
  let seenCount = found.seenCount;
  if ((seenCount === 0 && write.value === null) || (seenCount > 1 && !write.all)) {
    return { refused: seenCount > 1 ? 'multiple-values' : 'not-found' };
  }
  if (seenCount === 0) {
    // Neither the variable nor its section: the new section goes after the last event.
    if (!sectionSeen) seen[0] = Math.max(events.length - 1, 0);
    seenCount = 1;
  }
  let out = '';
  let copyBegin = 0;
  for (let i = 0; i < seenCount; i++) {
    const event = events[seen[i]!];
    let copyEnd: number, replaceEnd: number;
    if (!keySeen) {
      // Insert after this event: a section header's own line end comes along.
      copyEnd = event?.end ?? 0;
      if (copyEnd > 0 && copyEnd < text.length && text[copyEnd - 1] !== '\n' && text[copyEnd] === '\n') copyEnd++;
      replaceEnd = copyEnd;
    } else {
      copyEnd = event!.begin;
      replaceEnd = event!.end;
      const removal = write.value === null ? sectionRemoval(parsed, keysSection, seen, seenCount, i) : null;
      if (removal) ({ begin: copyEnd, end: replaceEnd, seenIndex: i } = removal);
      // The blanks before the entry on its line go with it.
      while (copyEnd > 0 && ' \t\r'.includes(text[copyEnd - 1]!)) copyEnd--;
    }
    if (copyEnd > copyBegin) {
      out += text.slice(copyBegin, copyEnd);
      if (text[copyEnd - 1] !== '\n') out += '\n';
    }
    copyBegin = replaceEnd;
  }
  if (write.value !== null) {
    if (!sectionSeen) out += sectionHeader(write.name.given, write.name.baselen);
    out += `\t${write.name.given.slice(write.name.baselen + 1)} = ${formatValue(write.value)}\n`;
  }
  return { text: out + text.slice(copyBegin) };
}

interface Matches {
  /**
   * Event indexes: each matching entry once the variable is seen; before that, in seen[seenCount],
   * the last header or entry of a section of the variable's name (where a new entry goes).
   */
  seen: number[];
  seenCount: number;
  keySeen: boolean;
  sectionSeen: boolean;
  /** Per event: a header of the variable's section. */
  keysSection: boolean[];
}

/** git's store_aux_event and store_aux over the parsed events. */
function findMatches(parsed: ParsedConfig, write: VariableWrite): Matches {
  const { name } = write;
  const base = name.canonical.slice(0, name.baselen);
  const found: Matches = { seen: [], seenCount: 0, keySeen: false, sectionSeen: false, keysSection: [] };
  let inKeysSection = false;
  parsed.events.forEach((event, i) => {
    if (event.type === 'section') {
      const s = parsed.sections[event.index]!;
      const header = s.subsection === null ? s.section : `${s.section}.${s.subsection}`;
      // A `[section.sub]` header matches whatever the case; a `[section "sub"]` one exactly.
      inKeysSection = found.keysSection[i] = s.legacy ? header === asciiLower(base) : header === base;
      if (inKeysSection) {
        found.sectionSeen = true;
        found.seen[found.seenCount] = i;
      }
    } else if (event.type === 'entry') {
      const entry = parsed.entries[event.index]!;
      const matches = variableOf(parsed, entry) === name.canonical && (write.matches?.(entry.value) ?? true);
      if (found.keySeen) {
        if (matches) found.seen[found.seenCount++] = i;
      } else if (inKeysSection) {
        found.seen[found.seenCount] = i;
        found.sectionSeen = true;
        if (matches) {
          found.seenCount++;
          found.keySeen = true;
        }
      }
    }
  });
  return found;
}

/** An entry's full name as git's parser gives it (a `[a.B]` header reads as `a.b`). */
function variableOf(parsed: ParsedConfig, entry: ParsedEntry): string {
  const s = parsed.sections[entry.sectionIndex];
  if (!s) return entry.key;
  return s.subsection === null ? `${s.section}.${entry.key}` : `${s.section}.${s.subsection}.${entry.key}`;
}

/**
 * git's maybe_remove_section: when the entries removed from seen[at] on are all a section has, and
 * no comment stands in it or right before it, the range that takes the whole section (blanks
 * before its header included), and the last index into `seen` it covers; else null.
 */
function sectionRemoval(parsed: ParsedConfig, keysSection: boolean[], seen: number[], seenCount: number,
  at: number): { begin: number; end: number; seenIndex: number } | null {
  const { events } = parsed;
  let i: number;
  let sectionSeen = false;
  for (i = seen[at]!; i > 0; i--) {
    const type = events[i - 1]!.type;
    if (type === 'comment') return null;
    if (type === 'entry') {
      // Not the section's first entry.
      if (!sectionSeen) return null;
      break;
    }
    if (type === 'section') {
      if (!keysSection[i - 1]) break;
      sectionSeen = true;
    }
  }
  const begin = events[i]!.begin;
  let s = at;
  for (i = seen[at]! + 1; i < events.length; i++) {
    const type = events[i]!.type;
    if (type === 'comment') return null;
    if (type === 'section') {
      if (keysSection[i]) continue;
      break;
    }
    if (type === 'entry') {
      if (++s < seenCount && i === seen[s]) continue;
      // Another entry stays in the section.
      return null;
    }
  }
  return { begin, end: i < events.length ? events[i]!.begin : events[events.length - 1]!.end, seenIndex: s };
}

/** git's store_create_section: `[section]` or `[section "sub"]`, in the case given. */
export function sectionHeader(name: string, baselen: number): string {
  const dot = name.indexOf('.');
  if (dot < 0 || dot >= baselen) return `[${name.slice(0, baselen)}]\n`;
  return `[${name.slice(0, dot)} "${name.slice(dot + 1, baselen).replace(/["\\]/g, '\\$&')}"]\n`;
}

/**
 * git's write_pair: quotes around a value whose leading or trailing space, or `;` or `#`, the
 * parser would otherwise lose; newline, tab, quote and backslash escaped.
 */
export function formatValue(value: string): string {
  const quote = /^ | $|[;#]/.test(value) ? '"' : '';
  let out = quote;
  for (const c of value) {
    if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else if (c === '"' || c === '\\') out += '\\' + c;
    else out += c;
  }
  return out + quote;
}
