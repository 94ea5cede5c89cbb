// A path made absolute as git's strbuf_add_absolute_path makes it: the working directory and the
// path joined as they are, nothing normalised (`../x/` stays `<cwd>/../x/`), and the working
// directory spelled as $PWD when $PWD names the same directory, so a path reached through a
// symlinked directory keeps the name the user knows it by. git records a clone's local source this
// way (remote.origin.url), and a submodule's relative URL is resolved against that text.
import fs from 'node:fs';
import path from 'node:path';

export function gitAbsolutePath(p: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  if (path.isAbsolute(p)) return p;
  const dir = sameDirectory(env.PWD, cwd) ? env.PWD! : cwd;
  return dir.endsWith('/') ? dir + p : `${dir}/${p}`;
}

function sameDirectory(pwd: string | undefined, cwd: string): boolean {
  if (!pwd || pwd === cwd) return false;
  try {
    const a = fs.statSync(pwd), b = fs.statSync(cwd);
    return (a.dev !== 0 || a.ino !== 0) && a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}
