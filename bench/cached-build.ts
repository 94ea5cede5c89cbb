// A derived corpus is built once and kept in the corpus cache: built in a temporary directory
// beside its place, marked last with a stamp (what it was built from), then renamed into place, so
// an interrupted build is never taken for a finished one and a failed one leaves nothing.
import fs from 'node:fs';
import path from 'node:path';

/**
 * `target`, unless its `marker` file already holds `stamp`, first built by `build` into the
 * directory it is given (`build` returns the directory that becomes `target`: that one or one
 * inside it).
 */
export function cachedBuild(target: string, marker: string, stamp: string, build: (tmp: string) => string): string {
  const markerPath = path.join(target, marker);
  if (fs.existsSync(markerPath) && fs.readFileSync(markerPath, 'utf8') === stamp) return target;
  const tmp = `${target}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  try {
    const built = build(tmp);
    fs.writeFileSync(path.join(built, marker), stamp);
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(built, target);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}
