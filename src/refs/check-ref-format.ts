// git's reference name rules (git-check-ref-format(1); refs.c check_refname_component and
// check_or_sanitize_refname), character for character. git works on bytes; every byte of a
// multi-byte UTF-8 sequence is >= 0x80 and allowed, so walking UTF-16 code units gives the same
// verdicts for ASCII and treats every non-ASCII character as an ordinary one.

export interface CheckRefFormatOptions {
  /** Accept names with a single component, such as `HEAD` or `main` (--allow-onelevel). */
  allowOneLevel?: boolean;
  /** Accept one `*` anywhere in the name, as a refspec side may have (--refspec-pattern). */
  refspecPattern?: boolean;
}

/** Returns null when `name` is a valid reference name, else the rule it breaks. */
export function checkRefFormat(name: string, opts: CheckRefFormatOptions = {}): string | null {
  if (name === '@') return "is the single character '@'";
  let patternAllowed = opts.refspecPattern === true;
  let components = 0;
  let start = 0;
  for (;;) {
    // One component: [start, end).
    let end = start;
    let last = 0;
    for (; end < name.length; end++) {
      const c = name.charCodeAt(end);
      if (c === 0x2f) break; // '/'
      if (c >= 0xd800 && c <= 0xdfff && !isPairedSurrogate(name, end)) {
        return `contains an unpaired UTF-16 surrogate at offset ${end}`;
      }
      if (c === 0x2e && last === 0x2e) return "contains '..'";
      if (c === 0x7b && last === 0x40) return "contains '@{'";
      if (c < 0x20 || c === 0x7f) return `contains the control character 0x${c.toString(16).padStart(2, '0')}`;
      if (c === 0x20 || c === 0x3a || c === 0x3f || c === 0x5b || c === 0x5c || c === 0x5e || c === 0x7e) {
        return `contains the forbidden character '${name[end]}'`;
      }
      if (c === 0x2a) {
        if (!patternAllowed) return "contains '*' (only one is allowed, and only in a refspec pattern)";
        patternAllowed = false;
      }
      last = c;
    }
    if (end === start) {
      if (name.length === 0) return 'is empty';
      if (start === 0) return "starts with '/'";
      return end === name.length ? "ends with '/'" : "contains '//'";
    }
    if (name.charCodeAt(start) === 0x2e) return `has a component starting with '.' (${name.slice(start, end)})`;
    if (end - start >= 5 && name.endsWith('.lock', end)) return `has a component ending with '.lock' (${name.slice(start, end)})`;
    components++;
    if (end === name.length) break;
    start = end + 1;
  }
  if (name.endsWith('.')) return "ends with '.'";
  if (!opts.allowOneLevel && components < 2) return 'has only one component';
  return null;
}

function isPairedSurrogate(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c <= 0xdbff) {
    const n = s.charCodeAt(i + 1);
    return n >= 0xdc00 && n <= 0xdfff;
  }
  const p = s.charCodeAt(i - 1);
  return p >= 0xd800 && p <= 0xdbff;
}

/**
 * git's refname_is_safe plus the format check: the names tsgit lets become paths under the git
 * directory. `refs/...` names must be valid ref names; anything else must be a one-level name in
 * capitals and underscores (HEAD, FETCH_HEAD, ORIG_HEAD), so that `config` or `index` can never be
 * read or written as a ref.
 */
export function checkRefPath(name: string): string | null {
  if (name.startsWith('refs/')) return checkRefFormat(name);
  if (!/^[A-Z_]+$/.test(name)) return "is neither under 'refs/' nor a name in capitals such as HEAD";
  return null;
}

/**
 * Names check-ref-format accepts for certain (with allowOneLevel), in the spellings refs nearly
 * always have: ASCII words, digits and `+,=%-.`, no '@', no component led by '.', no '..', no
 * '.lock' component, no '.' at the end. One regular expression, compiled to machine code, where
 * checkRefFormat's loop runs interpreted in a fresh process: parsers of many refs try this first
 * and check the names it does not accept in full.
 */
export function isPlainRefName(name: string): boolean {
  return PLAIN_REF.test(name);
}

const PLAIN_REF = /^(?!.*\.\.)(?!.*\.lock(?:\/|$))[\w+,=%-][\w+,=%.-]*(?:\/[\w+,=%-][\w+,=%.-]*)*(?<!\.)$/;
