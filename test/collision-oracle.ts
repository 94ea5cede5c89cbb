// What the collision tests of index-pack share: git's listing of a pack's objects, loose objects
// written under any id (a planted collision), and a verdict from tsgit and from git, the oracle, on
// one pack indexed into copies of one repository.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { git, gitBuf, rmrf, tsgit } from './helpers.js';

export interface PackedObject {
  id: string;
  type: string;
  offset: number;
  depth: number;
  base: string | null;
}

/** The objects of `pack` (its .idx beside it) as git's verify-pack lists them, in pack order. */
export function packObjects(cwd: string, pack: string): PackedObject[] {
  const out: PackedObject[] = [];
  for (const line of git(cwd, ['verify-pack', '-v', pack]).split('\n')) {
    const f = line.split(/\s+/);
    if (!/^[0-9a-f]{40}$/.test(f[0]!) || f.length < 5) continue;
    out.push({ id: f[0]!, type: f[1]!, offset: Number(f[4]), depth: Number(f[5] ?? 0), base: f[6] ?? null });
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/** Writes a loose object file under `id` holding `type` and `body`, whatever id they hash to. */
export function writeLoose(objectsDir: string, id: string, type: string, body: Buffer): void {
  const dir = path.join(objectsDir, id.slice(0, 2));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, id.slice(2));
  rmrf(file);
  fs.writeFileSync(file, zlib.deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])));
}

/** Writes a loose object under `id` whose content is not the object's (as a collision would be). */
export function plantImpostor(repo: string, id: string, type: string): void {
  writeLoose(path.join(repo, 'objects'), id, type, Buffer.from(`not the object ${id}\n`));
}

/** Blocks for `ms` milliseconds: file times are stamped from a coarse clock. */
function tick(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Indexes `data` in a copy of `repo` with tsgit and with git (received with --stdin, or with
 * `inPlace` indexed where it lies, outside the repository, from inside it); null where one accepts,
 * else its stderr. tsgit must refuse with exit 128, no stack trace and nothing left behind.
 */
export function verdicts(repo: string, data: Buffer, args: string[] = [], opts: { inPlace?: boolean } = {}): { ours: string | null; theirs: string | null } {
  const run = (indexer: 'ours' | 'theirs'): string | null => {
    const copy = `${repo}-${indexer}`;
    const aside = `${copy}-pack`, marker = `${copy}-marker`;
    rmrf(copy);
    rmrf(aside);
    fs.cpSync(repo, copy, { recursive: true });
    fs.mkdirSync(aside);
    const pack = path.join(aside, 'p.pack');
    fs.writeFileSync(pack, data);
    const command = ['index-pack', ...args, ...(opts.inPlace ? [pack] : ['--stdin'])];
    const input = opts.inPlace ? undefined : data;
    try {
      if (indexer === 'theirs') {
        try {
          gitBuf(copy, command, input);
          return null;
        } catch (e) {
          return String((e as { stderr?: Buffer }).stderr ?? e);
        }
      }
      fs.writeFileSync(marker, '');
      tick(20);
      const r = tsgit(copy, command, input);
      const stderr = r.stderr.toString();
      assert.doesNotMatch(stderr, /\n\s+at /, 'a stack trace');
      if (r.status === 0) return null;
      assert.equal(r.status, 128, stderr);
      const left = spawnSync('find', ['objects', '-newer', marker, '!', '-type', 'd'], { cwd: copy, encoding: 'utf8' }).stdout;
      assert.equal(left, '', `left behind in objects/ by: ${stderr}`);
      assert.deepEqual(fs.readdirSync(aside), ['p.pack'], `left beside the pack by: ${stderr}`);
      return stderr;
    } finally {
      for (const p of [copy, aside, marker]) rmrf(p);
    }
  };
  return { ours: run('ours'), theirs: run('theirs') };
}
