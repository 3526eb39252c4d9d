import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { toBase62 } from './random-id.js';

/**
 * The one shape of every secret the service hands out to be sent back as a bearer token: API
 * keys (`mxk_`, docs/api.md#keys) and the host API's service tokens (`mxs_`,
 * docs/host-api.md#service-tokens). The prefix, then 43 base62 characters (32 random bytes),
 * then 6 base62 characters of the CRC32 of those 43. The checksum lets the service refuse a
 * mistyped or made-up credential without a lookup, and lets secret scanners find leaked ones by
 * the same published rule; the prefix tells them, and a reader, which kind leaked.
 */
export interface CredentialFormat {
  /** `mxk_`, `mxs_`: lower-case letters and `_`. */
  readonly prefix: string;
  /** A new random credential of this kind. */
  generate(): string;
  /** True when the text has this kind's format and its checksum matches. */
  isWellFormed(text: string): boolean;
  /** The SHA-256 digest a credential is stored as: the plain text is never kept. */
  digest(text: string): Buffer;
  /** The part safe to show again (`keys list`, `service-tokens list`): the prefix and 8 more characters. */
  displayPrefix(text: string): string;
}

const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const DISPLAYED_BODY_LENGTH = 8;
/** Kept to letters and `_`, so a prefix is a literal in a regular expression and in a URL. */
const PREFIX_RE = /^[a-z]{2,8}_$/;

function checksumOf(body: string): string {
  return toBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

/** The format of credentials starting with `prefix`. */
export function credentialFormat(prefix: string): CredentialFormat {
  if (!PREFIX_RE.test(prefix)) throw new Error(`a credential prefix is 2 to 8 lower-case letters and _: ${prefix}`);
  const shape = new RegExp(`^${prefix}([0-9A-Za-z]{${BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);
  return {
    prefix,
    generate() {
      const body = toBase62(BigInt(`0x${randomBytes(32).toString('hex')}`), BODY_LENGTH);
      return `${prefix}${body}${checksumOf(body)}`;
    },
    isWellFormed(text) {
      const m = shape.exec(text);
      return m !== null && m[1] !== undefined && checksumOf(m[1]) === m[2];
    },
    digest: (text) => hash('sha256', text, 'buffer'),
    displayPrefix: (text) => text.slice(0, prefix.length + DISPLAYED_BODY_LENGTH),
  };
}
