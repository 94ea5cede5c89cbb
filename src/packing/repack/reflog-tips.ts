// The ids reflogs mention, which git's repack keeps (pack-objects --reflog), so that -d does not
// drop history `git reset` left reachable only from a reflog. Read straight from logs/ (tsgit's
// reflog module only appends); ids the database no longer has are skipped, as an expired entry.
import fs from 'node:fs';
import path from 'node:path';
import { fromHex, OID_HEX, ZERO_HEX } from '../../core/oid.js';

/** Every non-zero old and new id in $GIT_DIR/logs, once each. */
export function reflogTips(gitDir: string, has: (oid: Uint8Array) => boolean): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  const add = (hex: string) => {
    if (hex === ZERO_HEX || seen.has(hex)) return;
    seen.add(hex);
    const id = fromHex(hex);
    if (id && has(id)) out.push(id);
  };
  const visit = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { visit(p); continue; }
      if (!e.isFile()) continue;
      for (const line of fs.readFileSync(p, 'latin1').split('\n')) {
        if (line.length < 2 * OID_HEX + 1 || line[OID_HEX] !== ' ') continue;
        add(line.slice(0, OID_HEX));
        add(line.slice(OID_HEX + 1, 2 * OID_HEX + 1));
      }
    }
  };
  visit(path.join(gitDir, 'logs'));
  return out;
}
