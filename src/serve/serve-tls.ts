import type { FastifyBaseLogger } from 'fastify';
import type { ServeConfig } from './serve-config.js';
import { loadTlsMaterial, type TlsMaterial } from '../tls/certificate.js';

/** The certificate of the public listener (made on first start), or undefined for plain HTTP. */
export async function loadServeTls(config: ServeConfig): Promise<TlsMaterial | undefined> {
  if (config.insecureHttp) return undefined;
  return loadTlsMaterial({
    dataDir: config.dataDir,
    host: config.host,
    certFile: config.tlsCertFile,
    keyFile: config.tlsKeyFile,
  });
}

/** Says how the public listener speaks: the certificate's fingerprint, or a warning for plain HTTP. */
export function logTransport(log: FastifyBaseLogger, tlsMaterial: TlsMaterial | undefined): void {
  if (tlsMaterial === undefined) {
    log.warn('serving plain HTTP (--insecure-http): only behind a proxy that terminates TLS');
  } else {
    log.info(
      { fingerprint256: tlsMaterial.fingerprint256, source: tlsMaterial.source, certificate: tlsMaterial.certPath },
      'TLS certificate',
    );
  }
}
