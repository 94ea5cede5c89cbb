// The CLI explains itself as git's does: `-h` (usage on stdout, 129), `--help` and `tsgit help
// <command>` (stdout, 0), usage errors with the synopsis (129), and `-C` on a missing directory.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { commandNames, loadCommand } from '../src/cli/command-list.js';
import { rmrf, tmpDir, tsgit } from './helpers.js';
import { sameAsSpawned, tsgitBatch, type BatchResult } from './cli-batch.js';

const cwd = tmpDir();
after(() => rmrf(cwd));

test('the command list names every module in cli/commands', () => {
  const dir = new URL('../src/cli/commands/', import.meta.url);
  const files = fs.readdirSync(dir).filter(f => f.endsWith('.js')).map(f => f.slice(0, -3)).sort();
  assert.deepEqual(commandNames(), files);
});

test('every command module has a summary, a synopsis and answers -h, --help and help <command>', async () => {
  const names = commandNames();
  assert.ok(names.includes('clone') && names.includes('help'));
  // Three command lines a command, in one process (tsgitBatch); the first command's also spawned.
  const commands = names.flatMap((name) => [[name, '-h'], [name, '--help'], ['help', name]].map((args) => ({ cwd, args })));
  const results = tsgitBatch(commands);
  sameAsSpawned(commands.slice(0, 3), results.slice(0, 3));
  for (const [i, name] of names.entries()) {
    const module = await loadCommand(name);
    assert.ok(module, name);
    assert.equal(typeof module.default, 'function', `${name} exports its command`);
    assert.ok(module.help?.summary, `${name} has a summary`);
    assert.ok(module.help.synopsis.length > 0, `${name} has a synopsis`);
    const [h, long, viaHelp] = results.slice(3 * i, 3 * i + 3) as [BatchResult, BatchResult, BatchResult];
    assert.equal(h.status, 129, `${name} -h exits 129`);
    assert.match(h.stdout.toString(), new RegExp(`^usage: tsgit ${name} `), `${name} -h prints its usage`);
    for (const option of module.help.options) {
      if (option[0]) assert.ok(h.stdout.toString().includes(option[0]), `${name} -h lists ${option[0]}`);
    }
    assert.equal(long.status, 0, `${name} --help exits 0`);
    assert.equal(long.stdout.toString(), h.stdout.toString());
    assert.equal(viaHelp.status, 0);
    assert.equal(viaHelp.stdout.toString(), h.stdout.toString());
  }
});

test('tsgit --help lists exactly the commands, with their summaries', () => {
  const r = tsgit(cwd, ['--help']);
  assert.equal(r.status, 0);
  const listed = [...r.stdout.toString().matchAll(/^ {3}([a-z-]+) +\S/gm)].map(m => m[1]);
  assert.deepEqual(listed, commandNames());
  assert.ok(!listed.includes('index-pack-memory'));
});

test('a usage error names what was wrong, then the usage, exit 129', () => {
  const r = tsgit(cwd, ['ls-tree', '--no-such-option']);
  assert.equal(r.status, 129);
  const err = r.stderr.toString();
  assert.match(err, /^error: unknown option `no-such-option'\nusage: tsgit ls-tree /);
  assert.match(err, /\n {4}-r {20}recurse into subtrees\n/);
  const clone = tsgit(cwd, ['clone']);
  assert.equal(clone.status, 129);
  assert.match(clone.stderr.toString(), /^error: You must specify a repository to clone\.\nusage: tsgit clone /);
  const unknown = tsgit(cwd, ['frobnicate']);
  assert.equal(unknown.status, 129);
  assert.match(unknown.stderr.toString(), /'frobnicate' is not a tsgit command/);
});

test('-C on a missing directory says it cannot change to it, exit 128', () => {
  const r = tsgit(cwd, ['-C', 'no-such-dir', 'rev-parse', 'HEAD']);
  assert.equal(r.status, 128);
  assert.equal(r.stderr.toString(), "fatal: cannot change to 'no-such-dir': No such file or directory\n");
  fs.writeFileSync(path.join(cwd, 'a-file'), '');
  const f = tsgit(cwd, ['-C', 'a-file', 'rev-parse', 'HEAD']);
  assert.equal(f.status, 128);
  assert.equal(f.stderr.toString(), "fatal: cannot change to 'a-file': Not a directory\n");
});
