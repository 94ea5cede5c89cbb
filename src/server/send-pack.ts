// The pack part of a response (upload-pack.c's create_pack_file): enumerate, then write the pack
// straight into side-band packets as it is produced, with git's progress lines on band 2 and a
// keep-alive while a long enumeration has nothing to say. Without side-band the pack bytes go out
// raw and progress is dropped, as git does. With a reachability bitmap the enumeration is bitmap
// arithmetic and most of the pack is copied verbatim from the bitmapped pack; when the bitmap
// cannot answer (or cannot be read) the walk does, as git falls back.
import { encodeSideband, SIDEBAND_MAX_DATA, writeLength, FLUSH_PKT, type SidebandMode } from '../protocol/index.js';
import type { PackReuse } from '../packing/write/reuse.js';
import { GitError } from '../core/errors.js';
import { progressText } from '../core/progress.js';
import { writePack, type PackContents } from '../packing/write/write.js';
import { enumerateObjects, type PackRequest } from './enumerate.js';
import { enumerateWithBitmap, type BitmapPack } from './enumerate-bitmap.js';
import type { Session } from './session.js';

export interface SendPackOptions {
  /** null sends the pack unframed (a v0 client that did not ask for side-band). */
  readonly sideband: SidebandMode | null;
  readonly progress: boolean;
  readonly ofsDelta: boolean;
  readonly thin: boolean;
}

const KEEPALIVE = Buffer.from('0005\x01', 'latin1');

export async function sendPack(s: Session, req: PackRequest, opts: SendPackOptions): Promise<void> {
  const out = s.out;
  const mode = opts.sideband;
  const emit = mode && opts.progress
    ? (text: string) => out.write(encodeSideband(2, Buffer.from(text, 'utf8'), mode), true)
    : null;
  // git's pack-objects draws the same meters for the client as for a terminal (80 columns).
  const progress = emit ? progressText(emit) : undefined;
  const keepAliveMs = s.policy.keepAlive * 1000;
  // Empty band-1 packets while nothing else goes out (uploadpack.keepAlive), as git sends them.
  const keepAlive = (): void => {
    if (mode && keepAliveMs > 0 && Date.now() - out.lastWrite >= keepAliveMs) out.write(KEEPALIVE, true);
  };
  out.packStarted = true;
  try {
    const enumerating = progress?.('Enumerating objects', 0);
    const bitmap = bitmapEnumeration(s, req, opts);
    let contents: PackContents, prefix: PackReuse | undefined;
    if (bitmap) {
      enumerating?.update(bitmap.count);
      contents = bitmap.contents;
      prefix = bitmap.reuse ?? undefined;
    } else {
      contents = enumerateObjects(s, req, count => {
        if (enumerating) enumerating.update(count);
        else keepAlive();
      });
    }
    enumerating?.stop();
    // A walk inflated every tree it sends, and the writer copies them rather than read them again:
    // let their memory go first. A bitmap's answer walks only the commits past the nearest bitmaps,
    // and the trees it read there are the ones the writer may have to read again (to compress them
    // afresh or make deltas of them): they stay.
    if (!bitmap) s.odb.cache.clear();
    await out.drain();
    const stats = await writePack(s.odb, contents, chunk => {
      if (mode) {
        writeLength(chunk, 0, chunk.length);
        chunk[4] = 1;
      }
      return out.sink(chunk);
    }, {
      ofsDelta: opts.ofsDelta,
      thin: opts.thin,
      chunkSize: mode ? SIDEBAND_MAX_DATA[mode] : 65536,
      headroom: mode ? 5 : 0,
      progress,
      signal: s.options.signal,
      compression: s.policy.compression,
      // The client's index-pack hashes every object, as git's upload-pack relies on.
      checkReused: false,
      prefix,
      quiet: keepAlive,
    });
    emit?.(`Total ${stats.total} (delta ${stats.deltas}), reused ${stats.reused} (delta ${stats.reusedDeltas}), pack-reused ${stats.packReused}\n`);
    if (mode) out.write(FLUSH_PKT, true);
    await out.drain();
  } catch (e) {
    if (mode && !s.options.signal?.aborted) {
      out.write(encodeSideband(3, Buffer.from(`error: ${(e as Error).message}\n`, 'utf8'), mode), true);
      await out.drain().catch(() => undefined);
    }
    throw e;
  }
}

/**
 * The bitmap's answer, or null to walk. A bitmap that turns out unreadable is not the client's
 * problem: the walk answers instead, and the client hears nothing of it.
 */
function bitmapEnumeration(s: Session, req: PackRequest, opts: SendPackOptions): BitmapPack | null {
  try {
    return enumerateWithBitmap(s, req, { ofsDelta: opts.ofsDelta });
  } catch (e) {
    // An unreadable or stale bitmap is answered by the walk, as git does; a bug is not hidden.
    if (e instanceof GitError) return null;
    throw e;
  }
}
