// Annotated tags: the object they point at and its type, needed to peel refs and walk.
import { CorruptError } from '../core/errors.js';
import { hexBytesToOid, OID_BYTES, OID_HEX } from '../core/oid.js';
import { typeCode, type ObjectTypeCode } from './type.js';

export interface TagHeader {
  object: Uint8Array;
  type: ObjectTypeCode;
  name: string;
}

export function parseTag(buf: Uint8Array, label: () => string): TagHeader {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.length);
  if (b.toString('latin1', 0, 7) !== 'object ' || b[7 + OID_HEX] !== 0x0a) {
    throw new CorruptError('object', `${label()}: bad object line in tag`);
  }
  const object = new Uint8Array(OID_BYTES);
  if (!hexBytesToOid(b, 7, object)) throw new CorruptError('object', `${label()}: bad object id in tag`);
  let p = 7 + OID_HEX + 1;
  const typeEnd = b.indexOf(0x0a, p);
  if (b.toString('latin1', p, p + 5) !== 'type ' || typeEnd < 0) {
    throw new CorruptError('object', `${label()}: bad type line in tag`);
  }
  const type = typeCode(b.toString('latin1', p + 5, typeEnd));
  if (!type) throw new CorruptError('object', `${label()}: unknown type in tag`);
  p = typeEnd + 1;
  let name = '';
  if (b.toString('latin1', p, p + 4) === 'tag ') {
    const e = b.indexOf(0x0a, p);
    name = b.toString('utf8', p + 4, e < 0 ? b.length : e);
  }
  return { object, type, name };
}
