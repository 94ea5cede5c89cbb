// The head of a CGI program's response (git http-backend's), as the two HTTP servers that run it
// turn it into theirs: bench/cgi-server.ts for the serve benchmarks and the tests' stand-in server.
export interface CgiHead {
  status: number;
  headers: Record<string, string>;
  /** Where the body starts in the bytes read. */
  bodyStart: number;
}

/**
 * The head at the start of `output`, or null while the blank line that ends it has not come. A
 * "Status: 404 Not Found" line gives the status (200 without one); every other line is a header.
 */
export function parseCgiHead(output: Buffer): CgiHead | null {
  const end = output.indexOf('\r\n\r\n');
  if (end < 0) return null;
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of output.subarray(0, end).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim(), value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
    else headers[name] = value;
  }
  return { status, headers, bodyStart: end + 4 };
}
