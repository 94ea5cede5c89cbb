// How received objects are checked, as git reads it for receive-pack (receive.*) and for fetch and
// clone (fetch.*): <section>.fsckObjects, else transfer.fsckObjects, turns the checks on or off;
// <section>.fsck.<msg-id> sets a problem's level; <section>.fsck.skipList (else fsck.skipList)
// names objects whose problems are ignored. One default differs from git's, on purpose: with
// neither switch set, every received object is checked.
import fs from 'node:fs';
import path from 'node:path';
import { GitError } from '../core/errors.js';
import { FSCK_LEVELS, type FsckMsgId, type FsckOptions, type FsckOverrides } from '../object/fsck.js';
import type { Config } from './config.js';

/**
 * The fsck options for objects received by `section`, or null when they are not checked. `base`
 * holds levels the caller starts from (the configured ones override them). A skip list is read
 * relative to `gitDir`.
 */
export function transferFsck(config: Config, section: 'receive' | 'fetch', gitDir: string, base: FsckOverrides = {}): FsckOptions | null {
  const on = config.getBool(section, null, 'fsckobjects') ?? config.getBool('transfer', null, 'fsckobjects') ?? true;
  if (!on) return null;
  const levels: FsckOverrides = { ...base };
  for (const e of config.list()) {
    if (e.section !== section || e.subsection !== 'fsck' || e.key === 'skiplist') continue;
    const id = Object.keys(FSCK_LEVELS).find((k) => k.toLowerCase() === e.key) as FsckMsgId | undefined;
    const level = (e.value ?? '').toLowerCase();
    if (!id) continue; // git: "skipping unknown msg id"
    if (level !== 'error' && level !== 'warn' && level !== 'ignore') {
      throw new GitError('config', 'bad-value', `invalid value for '${section}.fsck.${id}': '${e.value ?? ''}' (expected error, warn or ignore)`);
    }
    levels[id] = level;
  }
  const skipListFile = config.get(section, 'fsck', 'skiplist') ?? config.get('fsck', null, 'skiplist');
  return { strict: true, levels, ...(skipListFile !== undefined ? { skip: readSkipList(path.resolve(gitDir, skipListFile)) } : {}) };
}

/** git's fsck skip list: one id per line, '#' comments and blank lines allowed. */
function readSkipList(file: string): Set<string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new GitError('config', 'bad-value', `could not open skip list: ${file}: ${(e as Error).message}`, { cause: e });
  }
  const ids = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    if (!/^[0-9a-fA-F]{40}$/.test(line)) throw new GitError('config', 'bad-value', `${file}: invalid object name: ${line}`);
    ids.add(line.toLowerCase());
  }
  return ids;
}
