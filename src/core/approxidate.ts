// Dates for --shallow-since and `<ref>@{<date>}`, in the forms people give git: a Unix time
// (`1700000000`, `@1700000000`), an ISO 8601 or RFC 2822 date (local time when no zone is given, as
// in git), or a relative `<n> <unit>s ago` (`3.days.ago`; git takes `ago` as read), `yesterday`,
// `now`, in any case. A date without a time of day takes the current one, as in git. git's
// approxidate accepts anything and guesses; tsgit refuses what it cannot read rather than deepening
// to a guess or reading a reflog at one (a number of fewer than nine digits too).
import { GitError } from './errors.js';

const UNIT_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400, week: 7 * 86400 };

export function parseApproxDate(text: string, now = Date.now()): number {
  const s = text.trim();
  const nowSeconds = Math.floor(now / 1000);
  // git reads a number of nine digits or more as seconds since 1970 (date.c match_digit); a
  // shorter one is a piece of a date to it (20070606), and alone git guesses: refused here.
  let m = /^@?([0-9]{9,15})$/.exec(s);
  if (m) return Number(m[1]);
  if (/^@?[0-9]+$/.test(s)) throw new GitError('client', 'bad-date', `invalid date format: ${text}`);
  if (/^now$/i.test(s)) return nowSeconds;
  if (/^yesterday$/i.test(s)) return nowSeconds - 86400;
  m = /^([0-9]+)[ .]+(second|minute|hour|day|week|month|year)s?(?:[ .]+ago)?$/i.exec(s);
  if (m) {
    const n = Number(m[1]), unit = m[2]!.toLowerCase();
    if (unit !== 'month' && unit !== 'year') return nowSeconds - n * UNIT_SECONDS[unit]!;
    // git moves the local calendar date (and lets mktime carry an overflow: March 31 less a
    // month is March 2 or 3), not a fixed number of seconds.
    const d = new Date(nowSeconds * 1000);
    if (unit === 'month') d.setMonth(d.getMonth() - n);
    else d.setFullYear(d.getFullYear() - n);
    return Math.floor(d.getTime() / 1000);
  }
  m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[ T]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)?\s*(Z|[+-][0-9]{2}:?[0-9]{2})?$/.exec(s);
  if (m) {
    // Like git's approxidate, a date without a time keeps the current time of day.
    const clock = new Date(now);
    const dateOnly = m[4] === undefined;
    const [y, mo, d] = m.slice(1, 4) as string[];
    const h = dateOnly ? String(clock.getHours()) : m[4]!;
    const mi = dateOnly ? String(clock.getMinutes()) : m[5]!;
    const sec = dateOnly ? String(clock.getSeconds()) : m[6] ?? '0';
    const zone = m[7];
    if (zone === undefined) return Math.floor(new Date(+y!, +mo! - 1, +d!, +h, +mi, +sec).getTime() / 1000);

    const utc = Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +sec) / 1000;
    if (zone === 'Z') return utc;
    const digits = zone.replace(':', '');
    const offset = (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60;
    return utc - (digits[0] === '-' ? -offset : offset);
  }
  const parsed = Date.parse(s);
  if (!Number.isNaN(parsed)) return Math.floor(parsed / 1000);
  throw new GitError('client', 'bad-date', `invalid date format: ${text}`);
}
