import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Storage } from '../storage/storage.js';
import type { Notice } from './pages/layout.js';
import type { FormProblem } from './pages/form-problem.js';
import { digestSecretToken } from './secret-token.js';
import type { Session } from './sessions.js';

/**
 * What a form did, for the page its redirect opens (post/redirect/get, docs/app.md#what-a-form-did):
 * a key or secret to show once, a refusal and the fields as they were sent.
 */
export type FormResult =
  | {
      readonly form: 'key';
      readonly newKey?: { readonly keyId: string; readonly key: string };
      readonly problem?: FormProblem;
      readonly draft?: { readonly name: string; readonly expiresIn: string };
    }
  | {
      readonly form: 'webhook';
      readonly newSecret?: { readonly endpointId: string; readonly secret: string; readonly rotated: boolean };
      readonly problem?: FormProblem;
      readonly draft?: { readonly url: string; readonly name: string };
      readonly notice?: Notice;
    };

/** Long enough for the redirect, short enough that a result left behind does not linger. */
const FLASH_TTL_MS = 10 * 60_000;
const IV_BYTES = 12;
const TAG_BYTES = 16;

// The key comes from the session id, which only the browser's cookie holds (the store has its
// digest): a copy of the store cannot read the key or secret a flash carries.
function flashKey(session: Session): Buffer {
  return createHmac('sha256', session.id).update('meal-export app page flash').digest();
}

function seal(session: Session, result: FormResult): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', flashKey(session), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(result), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function unseal(session: Session, sealed: Buffer): FormResult | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', flashKey(session), sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    // Authenticated with this session's key: only this page sealed it.
    return JSON.parse(text.toString('utf8')) as FormResult;
  } catch {
    return undefined;
  }
}

/** A session's one-shot results, kept in the store so that any instance serving the redirect finds it. */
export function createFlashes(storage: Storage) {
  return {
    put: (session: Session, result: FormResult, now: number): Promise<void> =>
      storage.signIns.putSessionFlash({
        digest: digestSecretToken(session.id),
        sealed: seal(session, result),
        expiresAt: now + FLASH_TTL_MS,
      }),

    /** The result, once: a reload, a second tab or Back finds nothing. */
    async take(session: Session, now: number): Promise<FormResult | undefined> {
      const sealed = await storage.signIns.takeSessionFlash(digestSecretToken(session.id), now);
      return sealed === undefined ? undefined : unseal(session, sealed);
    },
  };
}

export type Flashes = ReturnType<typeof createFlashes>;
