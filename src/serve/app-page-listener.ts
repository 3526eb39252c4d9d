import type { FastifyBaseLogger } from 'fastify';
import type { ServeConfig } from './serve-config.js';
import type { Storage } from '../storage/storage.js';
import type { TlsMaterial } from '../tls/certificate.js';
import { type RunningAppPage, startAppPage } from '../web/app-page.js';

/**
 * The origin `users login-link` puts in its links (Storage.appPageOrigin): `--public-url`, else
 * the page's own address, with a wildcard host (0.0.0.0, ::) made the loopback one a browser on
 * this host can open.
 */
export function appPageOrigin(pageUrl: string, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return new URL(publicUrl).origin;
  const url = new URL(pageUrl);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  else if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

export interface ServedAppPageOptions {
  readonly config: ServeConfig;
  /** `--app-port`. */
  readonly port: number;
  readonly storage: Storage;
  readonly tlsMaterial: TlsMaterial | undefined;
  /** The API's URL, shown on the page. */
  readonly apiUrl: string;
  readonly log: FastifyBaseLogger;
}

/**
 * The app page: its own listener beside the API, on the same store and certificate. Rejects
 * when it cannot listen (its port in use). Once it listens, its origin is recorded as where
 * `users login-link` points its links; a store that refuses that only costs a warning.
 */
export async function startServedAppPage(options: ServedAppPageOptions): Promise<RunningAppPage> {
  const { config, storage, log } = options;
  const appPage = await startAppPage({
    storage,
    host: config.host,
    port: options.port,
    tls: options.tlsMaterial,
    publicUrl: config.publicUrl,
    appHomeUrl: config.appHomeUrl,
    apiUrl: options.apiUrl,
    apiPublicUrl: config.apiPublicUrl,
    appSignInUrl: config.appSignInUrl,
    dailyLimit: config.dailyLimit,
    log,
  });
  const origin = appPageOrigin(appPage.url, config.publicUrl);
  try {
    await storage.settings.recordAppPageOrigin(origin);
  } catch (err) {
    log.warn({ err }, 'could not record the app page address: users login-link needs --public-url');
  }
  log.info({ url: appPage.url, publicUrl: config.publicUrl, loginLinks: origin }, 'app page listening');
  return appPage;
}
