// The system's iconv program: the converter git links (glibc's on Linux), run for the encodings
// encoding.ts does not convert itself. Names come from .gitattributes, so each goes in as one
// `--to-code=` argument, never where iconv could read it as an option.
import { spawnSync } from 'node:child_process';

/** Names the iconv program refused, so that a repository full of them costs one run per name. */
const unknownNames = new Set<string>();

/** git's fallback_encoding, for the one spelling it knows some platforms lack. */
function fallbackName(name: string): string {
  return name.toLowerCase() === 'latin-1' ? 'ISO-8859-1' : name;
}

/**
 * Runs the system's iconv; null when it fails (unknown name, unconvertible input, no iconv). With
 * `omitInvalid` (iconv -c), characters the target lacks are left out instead.
 */
export function iconv(data: Uint8Array, from: string, to: string, omitInvalid = false): Buffer | null {
  const key = `${from}\0${to}`;
  // No argv can carry a NUL: such a name fails as an unknown one.
  if (unknownNames.has(key) || key.indexOf('\0') !== from.length) return null;
  // One argv element each, so that a name from .gitattributes can never be read as an option.
  const r = spawnSync('iconv', [...omitInvalid ? ['-c'] : [], `--from-code=${fallbackName(from)}`, `--to-code=${fallbackName(to)}`],
    { input: data, maxBuffer: Math.max(1 << 20, data.length * 8 + 64), env: { ...process.env, LC_ALL: 'C' } });
  // glibc says "failed to start conversion processing" (older: "conversion to `X' is not supported").
  const unknown = r.error !== undefined || /failed to start conversion|not supported|unsupported/i.test(r.stderr?.toString() ?? '');
  // Some glibc versions exit 1 after -c has left characters out; the output is whole all the same.
  if (!unknown && (r.status === 0 || (omitInvalid && r.status === 1))) return r.stdout;
  if (unknown) unknownNames.add(key);
  return null;
}
