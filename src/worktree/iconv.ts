// The system's iconv program: the converter git links (glibc's on Linux), run for the encodings
// encoding.ts does not convert itself. Names come from .gitattributes, so each goes in as one
// `--to-code=` argument, never where iconv could read it as an option.
//
// A process costs some milliseconds, so many inputs in one encoding share one run where the
// encoding allows it: joined by a separator, and the output split at the separator again
// (iconvJoined). That takes an encoding glibc converts one code point at a time, with ASCII as
// itself (code-page.ts's pointwise encodings): there a piece converts as it would alone, the
// separator comes out as itself, and a piece cut short inside a character makes the run fail at
// the separator's line feed, which no multi-byte character of those encodings contains.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';

/** Names the iconv program refused, so that a repository full of them costs one run per name. */
const unknownNames = new Set<string>();

/** git's fallback_encoding, for the one spelling it knows some platforms lack. */
function fallbackName(name: string): string {
  return name.toLowerCase() === 'latin-1' ? 'ISO-8859-1' : name;
}

/**
 * One run: its output, complete (`ok`) or up to where the conversion failed; null when iconv cannot
 * convert between the two names at all (unknown, or no iconv).
 */
function run(data: Uint8Array, from: string, to: string, omitInvalid: boolean): { ok: boolean; out: Buffer } | null {
  const key = `${from}\0${to}`;
  // No argv can carry a NUL: such a name fails as an unknown one.
  if (unknownNames.has(key) || key.indexOf('\0') !== from.length) return null;
  // One argv element each, so that a name from .gitattributes can never be read as an option.
  const r = spawnSync('iconv', [...omitInvalid ? ['-c'] : [], `--from-code=${fallbackName(from)}`, `--to-code=${fallbackName(to)}`],
    { input: data, maxBuffer: Math.max(1 << 20, data.length * 8 + 64), env: { ...process.env, LC_ALL: 'C' } });
  // glibc says "failed to start conversion processing" (older: "conversion to `X' is not supported").
  if (r.error !== undefined || /failed to start conversion|not supported|unsupported/i.test(r.stderr?.toString() ?? '')) {
    unknownNames.add(key);
    return null;
  }
  // Some glibc versions exit 1 after -c has left characters out; the output is whole all the same.
  return { ok: r.status === 0 || (omitInvalid && r.status === 1), out: r.stdout };
}

/**
 * Runs the system's iconv; null when it fails (unknown name, unconvertible input, no iconv). With
 * `omitInvalid` (iconv -c), characters the target lacks are left out instead.
 */
export function iconv(data: Uint8Array, from: string, to: string, omitInvalid = false): Buffer | null {
  const r = run(data, from, to, omitInvalid);
  return r?.ok ? r.out : null;
}

/**
 * `pieces` converted in one run, joined by `separator` (ASCII, none of it in any piece's output):
 * the outputs of the pieces before the first that failed, in order (all of them when none did,
 * with `whole` set); null when the outputs do not line up with the pieces (a separator in a
 * piece's output) or iconv cannot convert between the names.
 */
export function iconvJoined(pieces: readonly Uint8Array[], separator: string, from: string, to: string,
  omitInvalid = false): { parts: Buffer[]; whole: boolean } | null {
  const sep = Buffer.from(separator, 'latin1');
  const joined: Uint8Array[] = [];
  pieces.forEach((p, k) => { if (k) joined.push(sep); joined.push(p); });
  const r = run(Buffer.concat(joined), from, to, omitInvalid);
  if (!r) return null;
  const parts: Buffer[] = [];
  let start = 0;
  for (let at = r.out.indexOf(sep); at >= 0; at = r.out.indexOf(sep, start)) {
    parts.push(r.out.subarray(start, at));
    start = at + sep.length;
  }
  // After a failure the output stops inside the piece that failed; without one it ends the last.
  if (r.ok) parts.push(r.out.subarray(start));
  return parts.length > pieces.length || (r.ok && parts.length !== pieces.length) ? null : { parts, whole: r.ok };
}

/**
 * Each of `pieces` converted as iconv converts it alone (null where that fails), `from` and `to`
 * being UTF-8 and one of code-page.ts's pointwise encodings: one run for all of them; after a
 * piece that fails, that piece alone (so that the failure is its own) and one run for the rest.
 */
export function iconvEach(pieces: readonly Uint8Array[], from: string, to: string): (Buffer | null)[] {
  const out: (Buffer | null)[] = [];
  // A line feed first (it ends any character left open), then 128 random bits no piece holds.
  const separator = `\n${crypto.randomBytes(16).toString('hex')}`;
  while (out.length < pieces.length) {
    const rest = pieces.slice(out.length);
    const joined = rest.length > 1 ? iconvJoined(rest, separator, from, to) : null;
    if (joined === null) {
      // One piece left, or pieces that do not line up: each alone.
      for (const p of rest) out.push(iconv(p, from, to));
      break;
    }
    out.push(...joined.parts);
    if (!joined.whole) out.push(iconv(pieces[out.length]!, from, to));
  }
  return out;
}
