// fetch -o/--server-option against git 2.39:
//   over protocol v2 the options go as `server-option=` lines with every command (ls-refs, fetch),
//   as git's client sends them: what reaches git's upload-pack (its stdin, kept by a wrapper) is
//   compared; git's client sends them to tsgit's upload-pack, which takes them, as tsgit's own
//   client does; over v0 and v1 the fetch stops as git's does (its hint, fatal, 128), and with
//   --multiple the options are not passed on, as git passes them to none of its fetches.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { GIT_ENV, git, rmrf, tmpDir, TSGIT } from './helpers.js';
import { clonedTemplate, compareInCopies, runInCopy } from './oracle-copies.js';

const root = fs.realpathSync(tmpDir('tsgit-fetch-server-option-'));
after(() => rmrf(root));

// up.git (main, side) and work, its clone by a relative path; then up.git moves on.
// (The new commit is made in the source, so that work has not got it.)
const { template } = clonedTemplate(root);
git(path.join(root, 'source'), ['commit', '-q', '--allow-empty', '-m', 'two']);
git(path.join(root, 'source'), ['push', '-q', path.join(template, 'up.git'), 'main']);

// An upload-pack that keeps what the client sends it in $REQUEST_LOG.
const wrapper = path.join(root, 'logging-upload-pack');
fs.writeFileSync(wrapper, `#!/bin/sh\ntee -a "$REQUEST_LOG" | exec "$@"\n`, { mode: 0o755 });

interface Run { status: number | null; stderr: string; request: string[]; refs: string; fetchHead: string }

/**
 * `fetch <args>` by `client` from a fresh copy of work, through the wrapper around `server`; the
 * request's command and server-option lines.
 */
function fetchThrough(client: 'git' | 'tsgit', server: string[], args: string[]): Run {
  const log = path.join(fs.mkdtempSync(path.join(root, 'log-')), 'request');
  fs.writeFileSync(log, '');
  const uploadPack = [wrapper, ...server].map((w) => `'${w}'`).join(' ');
  const r = runInCopy(template, root, client, 'work', ['-c', 'protocol.version=2', 'fetch', `--upload-pack=${uploadPack}`, ...args],
    { ...GIT_ENV, REQUEST_LOG: log });
  const dir = path.join(r.top, 'work');
  return {
    status: r.status, stderr: r.stderr, request: pktLines(fs.readFileSync(log, 'latin1')).filter((l) => /^(command=|server-option=)/.test(l)),
    refs: git(dir, ['for-each-ref']), fetchHead: fs.readFileSync(path.join(dir, '.git', 'FETCH_HEAD'), 'utf8').replaceAll(r.top, '@TOP@'),
  };
}

/** The payloads of the pkt-lines in `text`, without their newlines. */
function pktLines(text: string): string[] {
  const lines: string[] = [];
  for (let at = 0; at + 4 <= text.length;) {
    const length = parseInt(text.slice(at, at + 4), 16);
    if (length < 4) { at += 4; continue; }
    lines.push(text.slice(at + 4, at + length).replace(/\n$/, ''));
    at += length;
  }
  return lines;
}

const GIT_UPLOAD_PACK = ['git', 'upload-pack'];
const TSGIT_UPLOAD_PACK = [process.execPath, TSGIT, 'upload-pack'];

describe('fetch -o / --server-option', () => {
  it('sends each option with every v2 command, as git does', () => {
    const args = ['-o', 'one', '--server-option=two words', '-o', '', 'origin', 'main', 'side:refs/heads/s'];
    const theirs = fetchThrough('git', GIT_UPLOAD_PACK, args);
    const ours = fetchThrough('tsgit', GIT_UPLOAD_PACK, args);
    assert.equal(theirs.status, 0, theirs.stderr);
    assert.deepEqual(theirs.request, [
      'command=ls-refs', 'server-option=one', 'server-option=two words', 'server-option=',
      'command=fetch', 'server-option=one', 'server-option=two words', 'server-option=',
    ]);
    assert.deepEqual(ours, theirs);
    // --no-server-option forgets those given before it.
    assert.deepEqual(fetchThrough('tsgit', GIT_UPLOAD_PACK, ['-o', 'x', '--no-server-option', '-o', 'y']).request,
      ['command=ls-refs', 'server-option=y', 'command=fetch', 'server-option=y']);
  });

  it("are taken by tsgit's upload-pack from git's client and tsgit's", () => {
    const args = ['-o', 'one', '-o', 'two', 'origin'];
    const plain = fetchThrough('git', GIT_UPLOAD_PACK, args);
    for (const client of ['git', 'tsgit'] as const) {
      const r = fetchThrough(client, TSGIT_UPLOAD_PACK, args);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r, plain);
    }
  });

  it('stops a v0 or v1 fetch as git does, and is not passed on by --multiple', () => {
    compareInCopies(template, root, { name: 'multiple', steps: [['-c', 'protocol.version=0', 'fetch', '-o', 'x', '--multiple', 'origin']] }, 'work');
    // git's upload-pack then says that the client hung up, when it notices in time: the lines
    // before are compared.
    for (const version of ['0', '1']) {
      const [theirs, ours] = (['git', 'tsgit'] as const).map((tool) => {
        const r = runInCopy(template, root, tool, 'work', ['-c', `protocol.version=${version}`, 'fetch', '-o', 'x', 'origin', 'main']);
        return { status: r.status, stderr: r.stderr.split('\n').slice(0, 2), fetchHead: fs.readFileSync(path.join(r.top, 'work', '.git', 'FETCH_HEAD'), 'utf8') };
      });
      assert.equal(ours!.status, 128);
      assert.deepEqual(ours, theirs);
    }
  });
});
