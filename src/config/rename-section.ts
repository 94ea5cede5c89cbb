// `git config --rename-section` and `--remove-section` on a file's text, as git does them
// (config.c git_config_copy_or_rename_section_in_file): not through the parser but line by line,
// each line read as fgets reads it into git's 1024-byte buffer. A line whose first non-blank is a
// header naming the section exactly (case and all: `[a "b"]` for a.b, `[a.b]` for a.b) is
// replaced by the new header, any entry after it on that line moved to a line of its own; a
// removed section loses its header line and every line up to the next header. Texts are binary
// strings, as in parse.ts.
import { sectionHeader } from './edit.js';
import { toBinary } from './parse.js';
import { writeConfigFile } from './write-file.js';

/** git reads the file with fgets into a buffer of this size: longer lines come in pieces. */
const FGETS_BUFFER = 1024;

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * The text with section `oldName` renamed to `newName` (null: removed), and how many headers
 * named it. `newName` should be one sectionNameOk accepts.
 */
export function renameSection(text: string, oldName: string, newName: string | null): { text: string; count: number } {
  let out = '';
  let count = 0;
  let removing = false;
  for (const line of fgetsLines(text)) {
    let i = 0;
    while (isSpace(line[i])) i++;
    if (line[i] === '[') {
      removing = false;
      const offset = headerMatch(line.slice(i), oldName);
      if (offset > 0) {
        count++;
        if (newName === null) {
          removing = true;
          continue;
        }
        const rest = line.slice(i + offset);
        out += sectionHeader(newName, newName.length) + (rest.length > 0 ? `\t${rest}` : '');
        continue;
      }
    }
    if (!removing) out += line;
  }
  return { text: out, count };
}

/** git's section_name_is_ok: not empty, letters, digits and '-' up to the first dot. */
export function sectionNameOk(name: string): boolean {
  return /^[A-Za-z0-9-]*(\.|$)/.test(name) && name.length > 0;
}

/** The text in the pieces fgets would return: up to and with a '\n', at most 1023 bytes each. */
function* fgetsLines(text: string): Generator<string> {
  for (let at = 0; at < text.length;) {
    const nl = text.indexOf('\n', at);
    const end = Math.min(nl < 0 ? text.length : nl + 1, at + FGETS_BUFFER - 1);
    yield text.slice(at, end);
    at = end;
  }
}

/**
 * git's section_name_match: when `line` (from its '[') is a header for `name`, the length of the
 * header and the blanks after it (its line end included); else 0.
 */
function headerMatch(line: string, name: string): number {
  let i: number, j = 0;
  let dot = false;
  for (i = 1; i < line.length && line[i] !== ']'; i++) {
    if (!dot && isSpace(line[i])) {
      dot = true;
      if (name[j++] !== '.') break;
      for (i++; isSpace(line[i]); i++);
      if (line[i] !== '"') break;
      continue;
    }
    if (line[i] === '\\' && dot) {
      i++;
    } else if (line[i] === '"' && dot) {
      for (i++; isSpace(line[i]); i++);
      break;
    }
    if (line[i] !== name[j++]) break;
  }
  if (line[i] !== ']' || j !== name.length) return 0;
  for (i++; isSpace(line[i]); i++);
  return i;
}

/**
 * git_config_rename_section_in_file: section `oldName` of `file` renamed to `newName` (null:
 * removed) under the file's lock, which git takes and rewrites with even when nothing matched;
 * how many headers named it. A lock held elsewhere throws ConfigLockError.
 */
export function renameSectionInFile(file: string, oldName: string, newName: string | null): number {
  let count = 0;
  writeConfigFile(file, (text) => {
    const result = renameSection(text ?? '', toBinary(oldName), newName === null ? null : toBinary(newName));
    count = result.count;
    return result.text;
  });
  return count;
}
