// git's wildmatch.c, rule for rule: `*`, `?`, `[...]` with ranges, `!`/`^` negation and
// [:class:] names, backslash escapes, and with WM_PATHNAME the `**` forms (`**/`, `/**/`, `/**`).
// Patterns and text are bytes; the end of the array stands for C's terminating NUL.

/** dir.c's glob special characters (git's is_glob_special): a name with one is also a pattern. */
export const GLOB_SPECIAL = /[*?[\\]/;

export const WM_CASEFOLD = 1;
export const WM_PATHNAME = 2;

const MATCH = 0, NOMATCH = 1, ABORT_ALL = -1, ABORT_TO_STARSTAR = -2;
const SLASH = 0x2f, STAR = 0x2a, BACKSLASH = 0x5c, LBRACKET = 0x5b, RBRACKET = 0x5d, QUESTION = 0x3f;

const isUpper = (c: number): boolean => c >= 0x41 && c <= 0x5a;
const isLower = (c: number): boolean => c >= 0x61 && c <= 0x7a;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isAlpha = (c: number): boolean => isUpper(c) || isLower(c);
const toLower = (c: number): number => (isUpper(c) ? c + 32 : c);
const isGlobSpecial = (c: number): boolean => c === STAR || c === QUESTION || c === LBRACKET || c === BACKSLASH;
const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isPrint = (c: number): boolean => c >= 0x20 && c < 0x7f;

const CLASSES: Record<string, (c: number) => boolean> = {
  alnum: c => isAlpha(c) || isDigit(c),
  alpha: isAlpha,
  blank: c => c === 0x20 || c === 0x09,
  cntrl: c => c < 0x20 || c === 0x7f,
  digit: isDigit,
  graph: c => isPrint(c) && c !== 0x20,
  lower: isLower,
  print: isPrint,
  punct: c => isPrint(c) && c !== 0x20 && !isAlpha(c) && !isDigit(c),
  space: isSpace,
  upper: isUpper,
  xdigit: c => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66),
};

/** True when `text[ts..te)` matches `pat[ps..pe)`. */
export function wildmatch(pat: Uint8Array, ps: number, pe: number, text: Uint8Array, ts: number, te: number, flags: number): boolean {
  return dowild(pat, ps, pe, text, ts, te, flags) === MATCH;
}

function dowild(pat: Uint8Array, p: number, pe: number, text: Uint8Array, t: number, te: number, flags: number): number {
  const P = (k: number): number => (k < pe ? pat[k]! : 0);
  const T = (k: number): number => (k < te ? text[k]! : 0);
  const fold = (flags & WM_CASEFOLD) !== 0;
  const patternStart = p;
  for (; p < pe; t++, p++) {
    let pc = P(p);
    let tc = T(t);
    if (tc === 0 && pc !== STAR) return ABORT_ALL;
    if (fold && isUpper(tc)) tc = toLower(tc);
    if (fold && isUpper(pc)) pc = toLower(pc);
    switch (pc) {
      case BACKSLASH:
        // Compared as written, not case-folded: git's quirk, kept.
        if (tc !== P(++p)) return NOMATCH;
        continue;
      default:
        if (tc !== pc) return NOMATCH;
        continue;
      case QUESTION:
        if ((flags & WM_PATHNAME) && tc === SLASH) return NOMATCH;
        continue;
      case STAR: {
        let matchSlash: boolean;
        if (P(++p) === STAR) {
          const prev = p - 2;
          while (P(++p) === STAR) { /* skip the run */ }
          if ((prev < patternStart || P(prev) === SLASH) &&
            (p >= pe || P(p) === SLASH || (P(p) === BACKSLASH && P(p + 1) === SLASH))) {
            // "**/" may match no directory at all: try the rest right here first.
            if (P(p) === SLASH && dowild(pat, p + 1, pe, text, t, te, flags) === MATCH) return MATCH;
            matchSlash = true;
          } else {
            matchSlash = false;
          }
        } else {
          matchSlash = (flags & WM_PATHNAME) === 0;
        }
        if (p >= pe) {
          // Trailing "**" matches everything; trailing "*" only if no '/' is left.
          if (!matchSlash) {
            const slash = text.indexOf(SLASH, t);
            if (slash >= 0 && slash < te) return NOMATCH;
          }
          return MATCH;
        } else if (!matchSlash && P(p) === SLASH) {
          // One '*' followed by '/' matches exactly one directory name.
          const slash = text.indexOf(SLASH, t);
          if (slash < 0 || slash >= te) return NOMATCH;
          t = slash;
          break; // the slash is consumed by the loop
        }
        for (;;) {
          if (tc === 0) break;
          // A literal after the star: skip ahead to where it occurs (not past '/' unless allowed).
          if (!isGlobSpecial(P(p))) {
            let lit = P(p);
            if (fold && isUpper(lit)) lit = toLower(lit);
            while ((tc = T(t)) !== 0 && (matchSlash || tc !== SLASH)) {
              if (fold && isUpper(tc)) tc = toLower(tc);
              if (tc === lit) break;
              t++;
            }
            if (tc !== lit) return NOMATCH;
          }
          const matched = dowild(pat, p, pe, text, t, te, flags);
          if (matched !== NOMATCH) {
            if (!matchSlash || matched !== ABORT_TO_STARSTAR) return matched;
          } else if (!matchSlash && tc === SLASH) {
            return ABORT_TO_STARSTAR;
          }
          tc = T(++t);
        }
        return ABORT_ALL;
      }
      case LBRACKET: {
        pc = P(++p);
        if (pc === 0x5e) pc = 0x21; // '^' negates like '!'
        const negated = pc === 0x21;
        if (negated) pc = P(++p);
        let prevCh = 0;
        let matched = false;
        for (;;) {
          if (pc === 0) return ABORT_ALL;
          if (pc === BACKSLASH) {
            pc = P(++p);
            if (pc === 0) return ABORT_ALL;
            if (tc === pc) matched = true;
          } else if (pc === 0x2d && prevCh && P(p + 1) && P(p + 1) !== RBRACKET) {
            pc = P(++p);
            if (pc === BACKSLASH) {
              pc = P(++p);
              if (pc === 0) return ABORT_ALL;
            }
            if (tc <= pc && tc >= prevCh) matched = true;
            else if (fold && isLower(tc) && tc - 32 <= pc && tc - 32 >= prevCh) matched = true;
            pc = 0; // so that prevCh becomes 0: "a-c-e" is not two ranges
          } else if (pc === LBRACKET && P(p + 1) === 0x3a) {
            const s = p += 2;
            while ((pc = P(p)) !== 0 && pc !== RBRACKET) p++;
            if (pc === 0) return ABORT_ALL;
            const len = p - s - 1;
            if (len < 0 || P(p - 1) !== 0x3a) {
              // No ":]": an ordinary '[' in the set.
              p = s - 2;
              pc = LBRACKET;
              if (tc === pc) matched = true;
            } else {
              const test = CLASSES[Buffer.from(pat.buffer, pat.byteOffset + s, len).toString('latin1')];
              if (!test) return ABORT_ALL;
              if (test(tc) || (test === isUpper && fold && isLower(tc))) matched = true;
              pc = 0;
            }
          } else if (tc === pc) {
            matched = true;
          }
          prevCh = pc;
          pc = P(++p);
          if (pc === RBRACKET) break;
        }
        if (matched === negated || ((flags & WM_PATHNAME) && tc === SLASH)) return NOMATCH;
        continue;
      }
    }
  }
  return t < te ? NOMATCH : MATCH;
}
