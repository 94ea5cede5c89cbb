// upload-pack, the serve journey in one place:
//   transport bytes in -> (idle and size limits) -> refs and policy read once -> protocol version
//   -> v0.ts (advertise, wants, shallow, ACK/NAK rounds) or v2.ts (capabilities, ls-refs, fetch,
//   object-info) -> send-pack.ts (enumerate.ts, then packing/write streaming into side-band) -> out.
// A client error is answered with an ERR line (band 3 once the pack has started) and ends the
// request; the caller decides what ending means (exit status, closing a socket).
import { GitError } from '../core/errors.js';
import { formatErr, PacketReader } from '../protocol/index.js';
import type { Repository } from '../repository/repository.js';
import { DEFAULT_SERVICE_LIMITS, type ServiceLimits } from './limits.js';
import { readPolicy } from './policy.js';
import { hideRefs } from './hidden-refs.js';
import { snapshotRefs } from './refs.js';
import { Response, Session, type ResponseSink, type UploadPackOptions } from './session.js';
import { serveV0 } from './v0.js';
import { serveV2 } from './v2.js';
import { limitInput } from './client-input.js';

export const AGENT = 'tsgit/0.1.0';

export interface UploadPackRequest {
  /** Client bytes: stdin, a socket, or an HTTP body. */
  input: AsyncIterable<Uint8Array>;
  output: ResponseSink;
  /** GIT_PROTOCOL's value (or the Git-Protocol header, or git://'s extra parameters). */
  protocol?: string;
  statelessRpc?: boolean;
  advertiseRefs?: boolean;
  /** Seconds without client input before giving up (--timeout); 0 waits forever. */
  timeout?: number;
  /** Bytes, wants, haves and rounds accepted from the client in one request or connection. */
  limits?: ServiceLimits;
  signal?: AbortSignal;
  /** Names the input in error messages. */
  source?: string;
  /** Given the wants and haves received (`wants`, `haves`) once the request ends, for the access log. */
  counts?: Record<string, number>;
  /** Where the configuration's environment variables and $HOME come from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The protocol version a GIT_PROTOCOL value asks for: the highest `version=N` in it, as git reads it. */
export function protocolVersion(value: string | undefined): 0 | 1 | 2 {
  let v: 0 | 1 | 2 = 0;
  for (const part of (value ?? '').split(':')) {
    if (part === 'version=2') v = 2;
    else if (part === 'version=1' && v < 1) v = 1;
  }
  return v;
}

export async function uploadPack(repo: Repository, req: UploadPackRequest): Promise<void> {
  const config = repo.loadConfig(req.env);
  const limits = req.limits ?? DEFAULT_SERVICE_LIMITS;
  const options: UploadPackOptions = {
    statelessRpc: req.statelessRpc ?? false,
    advertiseRefs: req.advertiseRefs ?? false,
    version: protocolVersion(req.protocol),
    limits,
    counts: { wants: 0, haves: 0 },
    signal: req.signal,
    agent: AGENT,
  };
  const source = req.source ?? 'upload-pack input';
  const input = new PacketReader(limitInput(req.input, source, (req.timeout ?? 0) * 1000, limits.maxRequestBytes), source);
  const out = new Response(req.output);
  const policy = readPolicy(config);
  const { visible, hidden } = hideRefs(snapshotRefs(repo), policy.hideRefs);
  const s = new Session(repo, policy, visible, input, out, options, hidden);
  try {
    if (options.version === 2) await serveV2(s);
    else await serveV0(s);
  } catch (e) {
    if (!out.packStarted && !options.signal?.aborted && e instanceof GitError) {
      out.write(formatErr(e.message), true);
      await out.drain().catch(() => undefined);
    }
    throw e;
  } finally {
    if (req.counts) Object.assign(req.counts, options.counts);
  }
}
