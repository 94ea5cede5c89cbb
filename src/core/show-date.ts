// Dates as git shows them in messages (date.c show_date), in the zone recorded with them.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * git's DATE_RFC2822, "Fri, 27 Nov 2026 14:06:25 +0200": `seconds` since 1970 shown in the zone
 * `tz` (a signed hhmm number, as a reflog or commit line holds it).
 */
export function rfc2822Date(seconds: number, tz: number): string {
  const minutes = Math.trunc(tz / 100) * 60 + (tz % 100);
  const d = new Date((seconds + minutes * 60) * 1000);
  const two = (n: number): string => String(n).padStart(2, '0');
  const zone = `${tz < 0 ? '-' : '+'}${String(Math.abs(tz)).padStart(4, '0')}`;
  return `${DAYS[d.getUTCDay()]}, ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} `
    + `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${zone}`;
}
