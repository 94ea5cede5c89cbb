// What a fresh process loads before it does anything: the commands that ssh, git's
// --upload-pack/--receive-pack and filtered checkouts start once per use must not pay for
// node:http, https and tls (10-15 ms) unless they reach an http(s) remote.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { GIT_ENV, ROOT, TSGIT, makeRepo, rmrf, tmpDir } from './helpers.js';

const HTTP_MODULES = ['http', 'https', 'tls'];

/** Node's built-in modules among `moduleLoadList` entries ("NativeModule http"). */
function httpModulesIn(list: string[]): string[] {
  return list.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).filter((m) => HTTP_MODULES.includes(m));
}

function loadedByImport(bundle: string): string[] {
  const url = pathToFileURL(path.join(ROOT, 'dist', 'src', bundle)).href;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e',
    `await import(${JSON.stringify(url)}); process.stdout.write(JSON.stringify(process.moduleLoadList));`]);
  return httpModulesIn(JSON.parse(out.toString()) as string[]);
}

test('the bundles of commands started per use load no http modules as they load', () => {
  for (const name of ['push', 'fetch', 'clone', 'ls-remote', 'upload-pack', 'receive-pack', 'checkout', 'submodule']) {
    assert.deepEqual(loadedByImport(`tsgit-cmd-${name}.js`), [], `tsgit-cmd-${name}.js`);
  }
  // The check sees them where they are needed: serve answers smart HTTP.
  assert.deepEqual(loadedByImport('tsgit-cmd-serve.js'), ['http']);
});

test('a push and an ls-remote to a local path load no http modules; one to an http URL does', () => {
  const dir = tmpDir();
  try {
    const src = makeRepo(3, { at: path.join(dir, 'src') });
    const bare = path.join(dir, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', bare], { env: GIT_ENV });
    // Written at exit by a module preloaded into the CLI's process.
    const report = path.join(dir, 'modules.json');
    const hook = path.join(dir, 'hook.mjs');
    fs.writeFileSync(hook, `import fs from 'node:fs';\nprocess.on('exit', () => fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify(process.moduleLoadList)));\n`);
    const run = (cwd: string, args: string[]): { status: number | null; modules: string[] } => {
      rmrf(report);
      let status: number | null = 0;
      try {
        execFileSync(process.execPath, ['--import', pathToFileURL(hook).href, TSGIT, ...args], { cwd, env: GIT_ENV, stdio: 'pipe' });
      } catch (e) {
        status = (e as { status: number | null }).status;
      }
      return { status, modules: httpModulesIn(JSON.parse(fs.readFileSync(report, 'utf8')) as string[]) };
    };
    const push = run(src, ['push', '-q', bare, 'HEAD:refs/heads/main']);
    assert.equal(push.status, 0);
    assert.deepEqual(push.modules, []);
    assert.equal(execFileSync('git', ['rev-parse', 'main'], { cwd: bare, env: GIT_ENV }).toString().trim(),
      execFileSync('git', ['rev-parse', 'HEAD'], { cwd: src, env: GIT_ENV }).toString().trim());
    const listed = run(src, ['ls-remote', bare]);
    assert.equal(listed.status, 0);
    assert.deepEqual(listed.modules, []);
    // Nothing listens on port 1 of loopback: the connection fails, after the modules were loaded.
    const viaHttp = run(src, ['ls-remote', 'http://127.0.0.1:1/repo.git']);
    assert.equal(viaHttp.status, 128);
    assert.deepEqual(viaHttp.modules.sort(), HTTP_MODULES);
  } finally {
    rmrf(dir);
  }
});
