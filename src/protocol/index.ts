// The wire protocol of upload-pack, pure: bytes and messages in, messages and bytes out. It never
// touches storage; pack data is handed to the caller as byte chunks.
//
// Order of operations:
//   pkt-line.ts     frame and unframe packets (everything below is built on it)
//   capabilities.ts parse and format capability lists (v0 after a NUL, v2 one per line)
//   v0.ts           v0/v1: ref advertisement -> want list -> haves/ACK/NAK rounds
//   v2.ts           v2: capability advertisement -> command request -> ls-refs / fetch sections
//   push.ts         a push: update commands -> push options -> (pack) -> report-status
//   history-lines.ts the shallow, deepen and filter lines of a fetch (its HistoryShape), read and
//                   written alike by v0.ts and v2.ts
//   filter-spec.ts  the `filter` argument of both
//   sideband.ts     the pack itself, multiplexed with progress and errors on bands 1/2/3
// Ids here are 40-character lower-case hex strings, since they arrive and leave as text.
export * from './pkt-line.js';
export * from './capabilities.js';
export * from './v0.js';
export * from './v2.js';
export type { HistoryRequest, HistoryShape } from './history-lines.js';
export { deepens, INFINITE_DEPTH, NO_DEEPEN } from './history-lines.js';
export * from './push.js';
export * from './filter-spec.js';
export * from './sideband.js';
export { DEFAULT_REQUEST_LIMITS, type RequestLimits } from './text.js';
