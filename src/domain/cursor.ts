import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FeedPosition } from './meal.js';

/**
 * Opaque, integrity-protected cursors (docs/api.md#the-call). A cursor is base64url of
 * version (1 byte) | modifiedAt (8 bytes) | id (UTF-8) | tag (16 bytes), where the tag is an
 * HMAC-SHA256 over the user id and everything before it. The secret lives in the store, so
 * every instance on one store accepts the others' cursors; another user's cursor fails the tag.
 */
const VERSION = 1;
const TAG_LENGTH = 16;
const HEADER_LENGTH = 1 + 8;
const BASE64URL_RE = /^[A-Za-z0-9_-]+$/;

export interface CursorCodec {
  encode(userId: string, position: FeedPosition): string;
  /** The position, or undefined for an altered, malformed or other user's cursor. */
  decode(userId: string, cursor: string): FeedPosition | undefined;
}

export function createCursorCodec(secret: Buffer): CursorCodec {
  const tagOf = (userId: string, signed: Buffer): Buffer =>
    createHmac('sha256', secret).update(userId).update('\0').update(signed).digest().subarray(0, TAG_LENGTH);

  return {
    encode(userId, { modifiedAt, id }) {
      const signed = Buffer.alloc(HEADER_LENGTH + Buffer.byteLength(id));
      signed.writeUInt8(VERSION, 0);
      signed.writeDoubleBE(modifiedAt, 1);
      signed.write(id, HEADER_LENGTH);
      return Buffer.concat([signed, tagOf(userId, signed)]).toString('base64url');
    },

    decode(userId, cursor) {
      if (!BASE64URL_RE.test(cursor)) return undefined;
      const bytes = Buffer.from(cursor, 'base64url');
      // Only the canonical spelling is accepted, so no altered character ever passes.
      if (bytes.length <= HEADER_LENGTH + TAG_LENGTH || bytes.toString('base64url') !== cursor) return undefined;
      const signed = bytes.subarray(0, bytes.length - TAG_LENGTH);
      if (!timingSafeEqual(bytes.subarray(bytes.length - TAG_LENGTH), tagOf(userId, signed))) return undefined;
      if (signed.readUInt8(0) !== VERSION) return undefined;
      const modifiedAt = signed.readDoubleBE(1);
      if (!Number.isSafeInteger(modifiedAt)) return undefined;
      return { modifiedAt, id: signed.subarray(HEADER_LENGTH).toString('utf8') };
    },
  };
}
