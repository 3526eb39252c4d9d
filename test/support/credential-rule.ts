import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';

/** The alphabet of every credential's body (docs/api.md#keys). */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The checksum as docs/api.md#keys defines it for every credential, computed independently of src/. */
export function publishedChecksum(body: string): string {
  let value = crc32(body);
  let out = '';
  while (value > 0) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out.padStart(6, '0');
}

/** Every credential with any one character changed (to base62, `_` or `-`) fails `isWellFormed`. */
export function assertEverySingleChangeFails(credential: string, isWellFormed: (text: string) => boolean): void {
  for (let i = 0; i < credential.length; i += 1) {
    for (const c of `${BASE62}_-`) {
      if (c === credential[i]) continue;
      const altered = credential.slice(0, i) + c + credential.slice(i + 1);
      assert.equal(isWellFormed(altered), false, `position ${i} changed to ${c}`);
    }
  }
}
