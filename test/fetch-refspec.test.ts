// Fetch refspecs as git reads them: forced and negative specs, patterns with text after the `*`,
// abbreviated sources (main -> refs/heads/main), destinations without refs/, the v2 ref prefixes
// they ask for, refusal of names git's rules reject, and the reverse: which ref tracks a remote's. The end-to-end behaviour is compared
// with git in fetch.test.ts; these pin the edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRefspec, trackingRefFor } from '../src/refs/refspec.js';
import { checkRemoteRefNames, mapRefs, refPrefixes } from '../src/client/refspec.js';

const A = 'a'.repeat(40), B = 'b'.repeat(40), C = 'c'.repeat(40);
const REFS = [
  { name: 'HEAD', oid: A, symrefTarget: 'refs/heads/main' },
  { name: 'refs/heads/main', oid: A },
  { name: 'refs/heads/topic/x', oid: B },
  { name: 'refs/heads/wip', oid: C },
  { name: 'refs/tags/v1', oid: B, peeled: C },
];

test('parsing: force, negative, patterns and plain names', () => {
  assert.deepEqual(parseRefspec('+refs/heads/*:refs/remotes/origin/*'),
    { force: true, negative: false, pattern: true, src: 'refs/heads/*', dst: 'refs/remotes/origin/*', text: '+refs/heads/*:refs/remotes/origin/*' });
  assert.equal(parseRefspec('^refs/heads/wip').negative, true);
  assert.equal(parseRefspec('main').dst, '');
  assert.equal(parseRefspec('main:').dst, '');
  // As git, the refusal names the refspec, not the rule it breaks.
  for (const bad of ['refs/heads/*:refs/x', 'refs/*/*:refs/x/*', '^refs/heads/a:refs/b', 'refs/heads/a:refs/heads/../x', 'refs/heads/a b:x']) {
    assert.throws(() => parseRefspec(bad), { message: `invalid refspec '${bad}'` }, bad);
  }
});

test('mapping: patterns, negatives, abbreviations and plain destinations', () => {
  const map = (specs: string[]) => mapRefs(REFS, specs.map(parseRefspec)).map((m) => `${m.remote.name}>${m.local}${m.force ? '+' : ''}`);
  assert.deepEqual(map(['+refs/heads/*:refs/remotes/o/*']), [
    'refs/heads/main>refs/remotes/o/main+', 'refs/heads/topic/x>refs/remotes/o/topic/x+', 'refs/heads/wip>refs/remotes/o/wip+']);
  assert.deepEqual(map(['refs/heads/*:refs/remotes/o/*', '^refs/heads/w*']), [
    'refs/heads/main>refs/remotes/o/main', 'refs/heads/topic/x>refs/remotes/o/topic/x']);
  assert.deepEqual(map(['refs/heads/topic/*:refs/t/*-mirror']), ['refs/heads/topic/x>refs/t/x-mirror']);
  assert.deepEqual(map(['main', 'v1:tags/v1', 'wip:local', 'HEAD:refs/h']), [
    'refs/heads/main>null', 'refs/tags/v1>refs/tags/v1', 'refs/heads/wip>refs/heads/local', 'HEAD>refs/h']);
  assert.deepEqual(map([`${B}:refs/pinned`]), [`${B}>refs/pinned`]);
  assert.throws(() => map(['nope']), /couldn't find remote ref nope/);
  assert.deepEqual(mapRefs(REFS, [parseRefspec('nope:refs/x')], true), []);
  // `$&` in a name is text, not a replacement pattern.
  assert.deepEqual(mapRefs([{ name: 'refs/heads/a$&b$\'', oid: A }], [parseRefspec('refs/heads/*:refs/remotes/o/*')]).map((m) => m.local),
    ['refs/remotes/o/a$&b$\'']);
});

test('remote-tracking refs as remote_find_tracking finds them: names as written, the first mapping wins', () => {
  const tracking = (specs: string[], ref: string) => trackingRefFor(specs.map(parseRefspec), ref);
  assert.equal(tracking(['+refs/heads/*:refs/remotes/o/*'], 'refs/heads/a$&b'), 'refs/remotes/o/a$&b');
  assert.equal(tracking(['main:refs/remotes/o/main'], 'refs/heads/main'), null);
  assert.equal(tracking(['refs/heads/main:remotes/o/main'], 'refs/heads/main'), 'remotes/o/main');
  assert.equal(tracking(['refs/heads/main', 'refs/heads/main:refs/x', 'refs/heads/*:refs/y/*'], 'refs/heads/main'), 'refs/x');
  assert.equal(tracking(['refs/heads/*:refs/remotes/o/*', '^refs/heads/main'], 'refs/heads/main'), 'refs/remotes/o/main');
  assert.equal(tracking(['refs/heads/*:refs/heads/*', '^refs/heads/m*'], 'refs/heads/main'), null);
  assert.equal(tracking(['refs/heads/main:refs/x', '^refs/heads/main'], 'refs/heads/main'), null);
});

test('v2 ref prefixes: a pattern asks for its fixed part, a name for every way it may be spelled', () => {
  assert.deepEqual(refPrefixes(['+refs/heads/*:refs/remotes/o/*', '^refs/heads/wip', `${A}:refs/x`].map(parseRefspec)), ['refs/heads/']);
  assert.deepEqual(refPrefixes([parseRefspec('main')]),
    ['main', 'refs/main', 'refs/tags/main', 'refs/heads/main', 'refs/remotes/main', 'refs/remotes/main/HEAD']);
});

test('a listing with a name git refuses is refused whole, symref targets included', () => {
  checkRemoteRefNames(REFS, 'remote');
  assert.throws(() => checkRemoteRefNames([...REFS, { name: 'refs/heads/../../config', oid: A }], 'remote'),
    /remote advertised the invalid ref name "refs\/heads\/\.\.\/\.\.\/config": it contains '\.\.'/);
  assert.throws(() => checkRemoteRefNames([{ name: 'HEAD', oid: A, symrefTarget: 'refs/heads/.hidden' }], 'remote'),
    /has a component starting with '\.'/);
  assert.throws(() => checkRemoteRefNames([{ name: 'config', oid: A }], 'remote'), /is not HEAD and not under refs\//);
});
