import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Answer, makeCertificate, type Receiver, startReceiver } from '../webhooks/receiver.js';
import { makeTempDir } from './project.js';

/** A webhook receiver that a `serve` started with `serveArgs` calls and trusts. */
export interface TrustedReceiver extends Receiver {
  /** `serve`'s flags to reach it: private addresses allowed, its self-signed certificate trusted. */
  readonly serveArgs: readonly string[];
}

/**
 * A real HTTPS receiver on 127.0.0.1 with a certificate made here, written to a file for
 * `--webhook-ca`; closing it removes that file too.
 */
export async function startTrustedReceiver(answer: Answer): Promise<TrustedReceiver> {
  const certificate = await makeCertificate();
  const caDir = makeTempDir('webhook-ca');
  const caFile = path.join(caDir.dir, 'receiver.pem');
  writeFileSync(caFile, certificate.cert);
  const receiver = await startReceiver(certificate, answer);
  return {
    ...receiver,
    serveArgs: ['--webhook-allow-private', '--webhook-ca', caFile],
    close: async () => {
      await receiver.close();
      caDir.remove();
    },
  };
}
