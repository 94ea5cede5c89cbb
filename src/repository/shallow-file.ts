// `<commonDir>/shallow` (one file for all work trees): the commits whose parents this repository
// does not have (its shallow boundary), one hex id per line. Its one reader: the server's walks
// take the ids as bytes (Repository.shallowCommits), fetch, clone and push as hex
// (client/shallow-file.ts writes it).
import fs from 'node:fs';
import path from 'node:path';
import { CorruptError } from '../core/errors.js';
import { isHexOid } from '../core/oid.js';

/** The ids listed, as lowercase hex in the file's order; none when there is no file. */
export function readShallow(commonDir: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(commonDir, 'shallow'), 'latin1');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const ids: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const id = line.trim();
    if (!isHexOid(id)) throw new CorruptError('core', `bad shallow line: ${line}`);
    ids.push(id.toLowerCase());
  }
  return ids;
}
