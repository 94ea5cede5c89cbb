// One line per request, for an operator to read or awk: space-separated fields, the same for both
// transports, '-' where a field does not apply, and a quoted reason last when there is one.
//
//   <time> <client> <transport> <repository> <service> v<protocol> <status> <outcome>
//     wants=<n> haves=<n> sent=<bytes> wait=<s> time=<s> ["<reason>"]
//
// (the counts are the service's: upload-pack's wants and haves; '-' for a request that reached no
// worker)
//
// time is when the request came (ISO 8601, UTC); transport is http-get (info/refs), http-post or
// git; status is the HTTP status (git://: '-'); outcome is ok, error (the client was told why),
// gone (the client left first), killed (its worker died), timeout (cut off), busy (refused: the
// queue or the connections were full), refused (not found, not allowed, malformed) or closing
// (the server was shutting down); sent counts the answer's bytes; wait is the time from the request's
// arrival until a worker took it (reading it, then queued) and time the whole request's, in seconds.
export type AccessOutcome = 'ok' | 'error' | 'gone' | 'killed' | 'timeout' | 'busy' | 'refused' | 'closing';

/** A record as the transport fills it in while the request runs. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface AccessRecord {
  /** When the request came (ms since the epoch). */
  readonly start: number;
  readonly client: string;
  readonly transport: 'http-get' | 'http-post' | 'git';
  readonly repository: string | null;
  /** The wire name: 'git-upload-pack'. */
  readonly service: string | null;
  readonly protocol: 0 | 1 | 2;
  readonly status: number | null;
  readonly outcome: AccessOutcome;
  readonly counts: Readonly<Record<string, number>> | null;
  readonly sent: number | null;
  /** From `start` until a worker took the request. */
  readonly waitMs: number;
  readonly reason?: string;
}

export function formatAccessLine(r: AccessRecord, now = Date.now()): string {
  // A service names its own counts (upload-pack: wants, haves); '-' when it gave none.
  const counts = r.counts && Object.keys(r.counts).length > 0 ? Object.entries(r.counts).map(([k, v]) => `${k}=${v}`).join(' ') : '-';
  const fields = [
    new Date(r.start).toISOString(), r.client || '-', r.transport, r.repository ?? '-', r.service ?? '-', `v${r.protocol}`,
    r.status === null ? '-' : String(r.status), r.outcome, counts, `sent=${r.sent ?? '-'}`,
    `wait=${seconds(r.waitMs)}`, `time=${seconds(now - r.start)}`,
  ];
  if (r.reason) fields.push(JSON.stringify(r.reason.replace(/\s+/g, ' ').trim().slice(0, 300)));
  return fields.join(' ');
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}
