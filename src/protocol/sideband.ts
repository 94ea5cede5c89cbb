// Side-band multiplexing (gitprotocol-pack "Packfile Data"): each pkt-line's first payload byte
// names a band: 1 pack data, 2 progress text, 3 a fatal error just before the stream aborts.
// side-band allows 1000-byte packets, side-band-64k (and protocol v2) 65520; both count the
// 4-byte length and the band byte, leaving 995 and 65515 bytes of data.
import { CorruptError, GitError } from '../core/errors.js';
import { writeLength, type Packet, type PacketSource } from './pkt-line.js';
import { at } from './text.js';

export type SidebandMode = 'side-band' | 'side-band-64k';

export const SIDEBAND_MAX_DATA: Readonly<Record<SidebandMode, number>> = Object.freeze({
  'side-band': 995,
  'side-band-64k': 65515,
});

export const Band = Object.freeze({ Pack: 1, Progress: 2, Error: 3 } as const);
export type Band = (typeof Band)[keyof typeof Band];

/** Frames `data` on `band` into as many packets as needed, written into one buffer. */
export function encodeSideband(band: Band, data: Uint8Array, mode: SidebandMode): Buffer {
  const max = SIDEBAND_MAX_DATA[mode];
  const packets = Math.max(1, Math.ceil(data.length / max));
  const out = Buffer.allocUnsafe(data.length + packets * 5);
  let o = 0;
  for (let i = 0; i < packets; i++) {
    const n = Math.min(max, data.length - i * max);
    writeLength(out, o, n + 5);
    out[o + 4] = band;
    out.set(data.subarray(i * max, i * max + n), o + 5);
    o += n + 5;
  }
  return out;
}

/** The server's side: pack bytes, progress and a final error, framed for the negotiated mode. */
export class SidebandMuxer {
  constructor(readonly mode: SidebandMode) {}

  pack(data: Uint8Array): Buffer {
    return encodeSideband(Band.Pack, data, this.mode);
  }

  progress(text: string): Buffer {
    return encodeSideband(Band.Progress, Buffer.from(text, 'utf8'), this.mode);
  }

  error(message: string): Buffer {
    return encodeSideband(Band.Error, Buffer.from(message, 'utf8'), this.mode);
  }
}

export interface DemuxOptions {
  /** Receives progress text in whole lines (ending in \r or \n), as git prints them. */
  onProgress?: (text: string) => void;
}

// Progress lines normally fit in a packet; a server that never ends a line must not make us buffer
// without bound.
const MAX_PENDING_PROGRESS = 8192;

/**
 * The client's side: hands back the pack bytes of each packet, reports progress, and throws the
 * server's band-3 message as a GitError. A flush ends the multiplexed stream.
 */
export class SidebandDemuxer {
  private pending = '';

  constructor(private readonly options: DemuxOptions = {}) {}

  /** Pack bytes carried by this packet (a view, possibly empty); null once a flush ends the stream. */
  accept(packet: Packet, where: string): Buffer | null {
    if (packet.type === 'flush') {
      this.end();
      return null;
    }
    if (packet.type !== 'data') throw new CorruptError('protocol', `${where}: unexpected ${packet.type} packet in side-band stream`);
    const payload = packet.payload;
    if (payload.length === 0) throw new CorruptError('protocol', `${where}: side-band packet without a band byte`);
    const data = payload.subarray(1);
    switch (payload[0]) {
      case Band.Pack:
        return data;
      case Band.Progress:
        this.progress(data.toString('utf8'));
        return data.subarray(0, 0);
      case Band.Error:
        this.end();
        throw new GitError('protocol', 'remote-error', `remote error: ${data.toString('utf8').replace(/\n$/, '')}`);
      default:
        throw new CorruptError('protocol', `${where}: invalid side-band band ${payload[0]}`);
    }
  }

  /** Delivers any unterminated progress text. */
  end(): void {
    if (this.pending && this.options.onProgress) this.options.onProgress(this.pending);
    this.pending = '';
  }

  private progress(text: string): void {
    if (!this.options.onProgress) return;
    const all = this.pending + text;
    const cut = Math.max(all.lastIndexOf('\n'), all.lastIndexOf('\r')) + 1;
    if (cut > 0) this.options.onProgress(all.slice(0, cut));
    this.pending = all.slice(cut);
    if (this.pending.length > MAX_PENDING_PROGRESS) this.end();
  }
}

/** Yields the pack bytes of a multiplexed stream until its closing flush. */
export async function* demuxSideband(source: PacketSource, options: DemuxOptions = {}): AsyncGenerator<Buffer> {
  const demuxer = new SidebandDemuxer(options);
  for (;;) {
    const p = await source.read();
    if (!p) throw new CorruptError('protocol', `${at(source, p)}: side-band stream ended without a flush`);
    const data = demuxer.accept(p, at(source, p));
    if (data === null) return;
    if (data.length > 0) yield data;
  }
}
