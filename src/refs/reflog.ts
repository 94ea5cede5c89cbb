// Reflog entries: "<old> <new> <name> <email> <time> <tz>\t<message>\n" appended to
// logs/<ref> (refs/files-backend.c: log_ref_write_fd, should_autocreate_reflog).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitError } from '../core/errors.js';

/** core.logAllRefUpdates: false, true (branches, remote-tracking refs, notes, HEAD) or 'always'. */
export type LogAllRefUpdates = boolean | 'always';

/** Whether an update of `name` gets a reflog entry: always when its log exists already. */
export function shouldLog(gitDir: string, name: string, mode: LogAllRefUpdates): boolean {
  if (mode === 'always') return true;
  if (mode && (name === 'HEAD' || /^refs\/(heads|remotes|notes)\//.test(name))) return true;
  return fs.existsSync(path.join(gitDir, 'logs', name));
}

/**
 * A reflog message the environment may replace: GIT_REFLOG_ACTION when set, even empty, else
 * `own`. git's fetch takes it for the action before each entry's ": <what>", and checkout (the
 * submodule update's too) for the whole of HEAD's entry; push, clone, branch creation and remote
 * rename write their own messages whatever it says.
 */
export function reflogAction(env: NodeJS.ProcessEnv, own: string): string {
  return env.GIT_REFLOG_ACTION ?? own;
}

/** git's copy_reflog_msg: runs of blanks become one space, none at either end. */
export function normalizeReflogMessage(msg: string): string {
  return msg.replace(/[ \t\n\r]+/g, ' ').trim();
}

export function appendReflog(gitDir: string, name: string, oldOid: string, newOid: string, ident: string, message: string): void {
  const file = path.join(gitDir, 'logs', name);
  const msg = normalizeReflogMessage(message);
  const line = `${oldOid} ${newOid} ${ident}${msg ? `\t${msg}` : ''}\n`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, line);
  } catch (e) {
    throw new GitError('refs', 'io', `cannot append to reflog ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** One line of a reflog: the update's old and new values, when it was made and why. */
export interface ReflogEntry {
  /** All zeros when the update created the ref. */
  readonly oldOid: string;
  readonly newOid: string;
  /** Seconds since 1970, from the line's identity. */
  readonly time: number;
  /** The zone the time was recorded in, as the signed hhmm number the line holds (+0200 is 200). */
  readonly tz: number;
  readonly message: string;
}

/**
 * logs/<name>'s entries, oldest first; null when it has no reflog (no such file, as git's
 * reflog_exists tells), while an empty file is a reflog without entries. Lines that do not parse
 * are passed by, as git's reader does.
 */
export function readReflog(gitDir: string, name: string): ReflogEntry[] | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(gitDir, 'logs', name), 'latin1');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw new GitError('refs', 'io', `cannot read reflog of ${name}: ${(e as Error).message}`, { cause: e });
  }
  const entries: ReflogEntry[] = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) [^\t]*> (\d+) ([+-]\d{4})(?:\t(.*))?$/s.exec(line);
    if (m) entries.push({ oldOid: m[1]!, newOid: m[2]!, time: Number(m[3]), tz: Number(m[4]), message: m[5] ?? '' });
  }
  return entries;
}

/**
 * "Name <email> <seconds> <+hhmm>" for reflog lines, from GIT_COMMITTER_NAME/EMAIL/DATE (DATE in
 * git's raw "<seconds> <+hhmm>" form), then `fallback` (user.name/user.email), then the login.
 */
export function committerIdent(env: NodeJS.ProcessEnv = process.env, fallback: { name?: string; email?: string } = {},
  now: Date = new Date()): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): keep the placeholder.
  }
  // git drops '<', '>' and newlines from both parts so that the line still parses.
  const clean = (s: string) => s.replace(/[<>\n]/g, '').trim();
  const name = clean(env.GIT_COMMITTER_NAME ?? fallback.name ?? user);
  const email = clean(env.GIT_COMMITTER_EMAIL ?? fallback.email ?? `${user}@${os.hostname()}`);
  const raw = /^@?(\d+) ([+-]\d{4})$/.exec(env.GIT_COMMITTER_DATE ?? '');
  if (raw) return `${name} <${email}> ${raw[1]} ${raw[2]}`;
  const offset = -now.getTimezoneOffset();
  const abs = Math.abs(offset);
  const tz = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${name} <${email}> ${Math.floor(now.getTime() / 1000)} ${tz}`;
}
