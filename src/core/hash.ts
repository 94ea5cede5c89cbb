// SHA-1 of whole objects. crypto.hash (Node >= 20.12) is a third of createHash's cost on small
// inputs, which dominate a pack; the header is hashed together with the body in one call whenever
// the caller already holds them in one buffer.
import crypto from 'node:crypto';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

const oneShot = (crypto as unknown as { hash?: (alg: string, data: Uint8Array, enc: 'buffer') => Buffer }).hash;

export function sha1(data: Uint8Array): Buffer {
  if (oneShot) return oneShot('sha1', data, 'buffer');
  return crypto.createHash('sha1').update(data).digest();
}

export function objectHeader(type: ObjectType, size: number): Buffer {
  return Buffer.from(`${type} ${size}\0`, 'latin1');
}

/** The id of an object: SHA-1 of "<type> <size>\0" followed by the content. */
export function hashObject(type: ObjectType, content: Uint8Array): Buffer {
  return crypto.createHash('sha1').update(objectHeader(type, content.length)).update(content).digest();
}
