// Edits to the text of one config file that leave every other byte as it was: a value is replaced
// on its own line, a new key goes after the last key of the last matching section (as git does),
// and a new section is appended at the end. Texts, names and values here are binary strings (one
// char per byte), like parse.ts.
import { GitError } from '../core/errors.js';
import { parseConfig, type ParsedConfig, type ParsedEntry } from './parse.js';

export type ConfigEdit =
  | { op: 'set'; section: string; subsection: string | null; key: string; value: string }
  | { op: 'add'; section: string; subsection: string | null; key: string; value: string }
  | { op: 'unset'; section: string; subsection: string | null; key: string };

/** Throws unless the names can be written and read back as the same variable. */
export function checkVariableName(section: string, subsection: string | null, key: string): void {
  const name = `${section}${subsection === null ? '' : `.${subsection}`}.${key}`;
  if (!/^[A-Za-z0-9-]+$/.test(section)) {
    throw new GitError('config', 'invalid-key', `invalid config section name '${section}' in '${name}'`);
  }
  if (subsection !== null && /[\n\0]/.test(subsection)) {
    throw new GitError('config', 'invalid-key', `invalid config subsection in '${JSON.stringify(name)}': newline or NUL`);
  }
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(key)) {
    throw new GitError('config', 'invalid-key', `invalid config key name '${key}' in '${name}'`);
  }
}

/** Applies one edit and returns the new text; `file` names the file in parse errors. */
export function applyEdit(text: string, file: string, edit: ConfigEdit): string {
  checkVariableName(edit.section, edit.subsection, edit.key);
  if (edit.op !== 'unset' && edit.value.includes('\0')) {
    throw new GitError('config', 'invalid-value', `config value for '${edit.section}.${edit.key}' contains NUL`);
  }
  const parsed = parseConfig(text, file);
  const matches = parsed.entries.filter((e) => entryMatches(parsed, e, edit));
  switch (edit.op) {
    case 'unset':
      return removeEntries(text, matches);
    case 'add':
      return insertEntry(text, parsed, edit.section, edit.subsection, edit.key, edit.value);
    case 'set': {
      if (matches.length === 0) return insertEntry(text, parsed, edit.section, edit.subsection, edit.key, edit.value);
      const last = matches[matches.length - 1]!;
      const line = `${edit.key} = ${formatValue(edit.value)}`;
      const replaced = last.ownsLine
        ? text.slice(0, last.lineStart) + '\t' + line + text.slice(last.end)
        : text.slice(0, last.keyStart) + line + text.slice(last.end);
      // Earlier duplicates lie before `last`, so their offsets are still right.
      return removeEntries(replaced, matches.slice(0, -1));
    }
  }
}

function sectionMatches(parsed: ParsedConfig, index: number, section: string, subsection: string | null): boolean {
  const s = parsed.sections[index];
  if (!s || s.section !== section.toLowerCase()) return false;
  if (s.subsection === null || subsection === null) return s.subsection === subsection;
  return s.legacy ? s.subsection === subsection.toLowerCase() : s.subsection === subsection;
}

function entryMatches(parsed: ParsedConfig, e: ParsedEntry, edit: ConfigEdit): boolean {
  return e.key === edit.key.toLowerCase() && sectionMatches(parsed, e.sectionIndex, edit.section, edit.subsection);
}

function removeEntries(text: string, entries: ParsedEntry[]): string {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.ownsLine) {
      text = text.slice(0, e.lineStart) + text.slice(e.end + terminatorLength(text, e.end));
    } else {
      text = text.slice(0, e.keyStart) + text.slice(e.end);
    }
  }
  return text;
}

function terminatorLength(text: string, at: number): number {
  if (text[at] === '\n') return 1;
  if (text[at] === '\r' && text[at + 1] === '\n') return 2;
  return 0;
}

function insertEntry(text: string, parsed: ParsedConfig, section: string, subsection: string | null,
  key: string, value: string): string {
  const line = `\t${key} = ${formatValue(value)}\n`;
  let index = -1;
  for (let i = parsed.sections.length - 1; i >= 0; i--) {
    if (sectionMatches(parsed, i, section, subsection)) {
      index = i;
      break;
    }
  }
  if (index < 0) {
    const sep = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
    return text + sep + formatSectionHeader(section, subsection) + line;
  }
  let at = parsed.sections[index]!.lineEnd;
  for (const e of parsed.entries) {
    if (e.sectionIndex === index) at = e.end + terminatorLength(text, e.end);
  }
  const sep = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return text.slice(0, at) + sep + line + text.slice(at);
}

/** `[section]` or `[section "sub"]` with `"` and `\` escaped, as git writes it. */
export function formatSectionHeader(section: string, subsection: string | null): string {
  if (subsection === null) return `[${section}]\n`;
  return `[${section} "${subsection.replace(/["\\]/g, '\\$&')}"]\n`;
}

/**
 * git's write_pair: quote the value when leading or trailing blanks or a comment character would
 * otherwise be lost, and escape newline, tab, quote and backslash. A carriage return also forces
 * quotes, because outside them the parser reads it as a blank.
 */
export function formatValue(value: string): string {
  const quote = /^[ ]|[ ]$|[;#\r]/.test(value) ? '"' : '';
  let out = quote;
  for (const c of value) {
    if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else if (c === '"' || c === '\\') out += '\\' + c;
    else out += c;
  }
  return out + quote;
}
