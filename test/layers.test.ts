// Imports point downward only. The order of the layers is written once, in ARCHITECTURE.md's
// "Layers" block; this test reads it there and every relative import (static, dynamic, a `new
// URL` of a module, or a file started by ownFile) in src/, and fails on one that reaches a layer
// above its own or beside it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './helpers.js';

const SRC = path.join(ROOT, 'src');

/** Folder name -> rank (higher is above); folders on one line share a rank. */
function layerRanks(): Map<string, number> {
  const text = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const block = text.slice(text.indexOf('## Layers'), text.indexOf('\n## ', text.indexOf('## Layers') + 1));
  const lines = block.split('\n').filter(l => /^ {4}src\//.test(l));
  const ranks = new Map<string, number>();
  lines.forEach((line, i) => {
    for (const m of line.matchAll(/src\/([a-z-]+)\//g)) ranks.set(m[1]!, lines.length - i);
  });
  return ranks;
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []);
}

const SPEC = /(?:\bfrom\s*|\bimport\s*\(\s*|new URL\(\s*)['"](\.\.?\/[^'"]+)['"]/g;
/** A file started by name (core/own-files.ts): its path is relative to src/. */
const OWN_FILE = /\bownFile\(\s*['"]([^'"]+)['"]/g;

test('ARCHITECTURE.md names every folder of src/ as a layer', () => {
  const ranks = layerRanks();
  const folders = fs.readdirSync(SRC, { withFileTypes: true }).filter(e => e.isDirectory()).map(e => e.name).sort();
  assert.deepEqual([...ranks.keys()].sort(), folders);
});

test('no module imports from a layer above its own, or beside it', () => {
  const ranks = layerRanks();
  const upward: string[] = [];
  for (const file of sources(SRC)) {
    const from = path.relative(SRC, file).split(path.sep);
    if (from.length === 1) continue; // src/index.ts, the library's front door, sits above everything
    const text = fs.readFileSync(file, 'utf8');
    const targets = [
      ...[...text.matchAll(SPEC)].map(m => [m[1]!, path.resolve(path.dirname(file), m[1]!)]),
      ...[...text.matchAll(OWN_FILE)].map(m => [m[1]!, path.resolve(SRC, m[1]!)]),
    ];
    for (const [spec, resolved] of targets) {
      const target = path.relative(SRC, resolved!).split(path.sep);
      if (target[0] === '..' || target[0] === from[0]) continue;
      const a = ranks.get(from[0]!)!, b = ranks.get(target[0]!);
      if (b === undefined || b >= a) upward.push(`${path.relative(ROOT, file)} imports ${spec} (${from[0]} -> ${target[0]})`);
    }
  }
  assert.deepEqual(upward, []);
});
