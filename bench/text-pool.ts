// The text every corpus is cut from: TypeScript's own lib/*.d.ts and typescript.js/.d.ts, from the
// typescript package pinned in package-lock.json. Those bytes are the same on every machine that ran
// `npm ci`, so the generated blobs (and therefore every object id) are too. A different typescript
// version would silently change every id, so loading refuses it unless explicitly allowed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha1 } from '../src/core/hash.js';

/** The version in package-lock.json that the recorded corpus ids were generated from. */
export const PINNED_TYPESCRIPT = '5.9.3';
/** SHA-1 of the concatenated pool, a check that the pinned version's files are really unchanged. */
export const PINNED_POOL_DIGEST = '1b06bc5d7b94ec1c2e5b0c593c4fc5880cf756de';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEFAULT_TYPESCRIPT_DIR = path.join(ROOT, 'node_modules', 'typescript');

/** Set to 1 to generate from another typescript version anyway (ids will not match the recorded ones). */
export const ALLOW_OTHER_SOURCE_ENV = 'TSGIT_BENCH_ALLOW_OTHER_TYPESCRIPT';

export interface TextPool {
  /** All source files concatenated, each ending in a newline. */
  bytes: Buffer;
  /** lineStart[i] is the offset of line i; lineStart[lines] is bytes.length. */
  lineStart: Int32Array;
  lines: number;
  version: string;
  digest: string;
  /** False when the source differs from the pinned one (only possible with the override set). */
  pinned: boolean;
}

function sourceFiles(libDir: string): string[] {
  // Plain code-unit order, not localeCompare: the order must not depend on the machine's locale.
  return fs.readdirSync(libDir)
    .filter((n) => /^lib\..*\.d\.ts$/.test(n) || n === 'typescript.js' || n === 'typescript.d.ts')
    .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

export function loadTextPool(typescriptDir = DEFAULT_TYPESCRIPT_DIR): TextPool {
  const manifest = path.join(typescriptDir, 'package.json');
  let version: string;
  try {
    version = String((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version?: unknown }).version);
  } catch (err) {
    throw new Error(`bench corpus: cannot read the typescript package at ${manifest} (run npm ci)`, { cause: err });
  }
  const allowOther = process.env[ALLOW_OTHER_SOURCE_ENV] === '1';
  if (version !== PINNED_TYPESCRIPT) {
    const msg = `bench corpus: ${manifest} is typescript ${version}, but corpora are generated from ` +
      `${PINNED_TYPESCRIPT} (package-lock.json); object ids would differ from the recorded ones`;
    if (!allowOther) throw new Error(`${msg}. Run npm ci, or set ${ALLOW_OTHER_SOURCE_ENV}=1 to generate anyway.`);
    process.emitWarning(msg);
  }

  const libDir = path.join(typescriptDir, 'lib');
  const parts: Buffer[] = [];
  for (const name of sourceFiles(libDir)) {
    const b = fs.readFileSync(path.join(libDir, name));
    parts.push(b);
    if (b.length > 0 && b[b.length - 1] !== 0x0a) parts.push(Buffer.from('\n'));
  }
  const bytes = Buffer.concat(parts);
  const digest = sha1(bytes).toString('hex');
  let pinned = version === PINNED_TYPESCRIPT;
  if (pinned && digest !== PINNED_POOL_DIGEST) {
    const msg = `bench corpus: typescript ${version} in ${typescriptDir} has different lib files ` +
      `(pool digest ${digest}, expected ${PINNED_POOL_DIGEST}); object ids would differ`;
    if (!allowOther) throw new Error(`${msg}. Reinstall with npm ci, or set ${ALLOW_OTHER_SOURCE_ENV}=1.`);
    process.emitWarning(msg);
    pinned = false;
  }

  let lines = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) lines++;
  const lineStart = new Int32Array(lines + 1);
  let n = 1;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) lineStart[n++] = i + 1;
  return { bytes, lineStart, lines, version, digest, pinned };
}
