import type { TrustedProxies } from '../listener/client-address.js';
import type { WebhookSettings } from '../webhooks/webhook-service.js';

/** The settings of `serve` (cli/serve.ts), as startServer and the cluster's processes read them. */
export interface ServeConfig {
  readonly database: string;
  /** `--direct-db`: PostgreSQL itself, for LISTEN, where `database` is a transaction pooler. */
  readonly directDatabase?: string | undefined;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly tlsCertFile: string | undefined;
  readonly tlsKeyFile: string | undefined;
  readonly insecureHttp: boolean;
  readonly minIntervalMs: number;
  readonly dailyLimit: number;
  readonly tombstoneDays: number;
  readonly logLevel: string;
  /** The admin listener's port (`/metrics`); undefined: none, and nothing is counted. */
  readonly adminPort: number | undefined;
  /** Processes serving the public port: 1 is this process alone; more, a node:cluster (cluster/). */
  readonly workers: number;
  /** The shared limiter store (`--redis`); in-process limiters when undefined. */
  readonly redisUrl: string | undefined;
  /** Every Redis key under this prefix (`--redis-prefix`). */
  readonly redisPrefix: string;
  /** The app page's listener (src/web): off when undefined; 0 picks a free port. */
  readonly appPort?: number | undefined;
  /** The host API's listener (src/host-api): off when undefined; 0 picks a free port. */
  readonly hostApiPort?: number | undefined;
  /** Where the host API listens: loopback unless the app's back end runs elsewhere. */
  readonly hostApiHost?: string | undefined;
  /** The app page's address as browsers see it, when behind a proxy. */
  readonly publicUrl?: string | undefined;
  /** `--app-home-url`: the diet app's page the app page links back to; undefined: it says how in words. */
  readonly appHomeUrl?: string | undefined;
  /** `--app-sign-in-url`: the diet app's sign-in page, for a consent asked of a person not signed in. */
  readonly appSignInUrl?: string | undefined;
  /** `--api-public-url`: the public API's address as third parties reach it (Connect's issuer). */
  readonly apiPublicUrl?: string | undefined;
  /** `--trust-proxy`: proxies whose X-Forwarded-For names the client (listener/client-address.ts). */
  readonly trustedProxies?: TrustedProxies | undefined;
  /** `--max-waiting`: long polls (`wait`) held at most by each serving process. */
  readonly maxWaiting: number;
  /** `--webhook-allow-private`, `--webhook-ca`: where webhook calls may go (webhooks/webhook-service.ts). */
  readonly webhooks: WebhookSettings;
}
