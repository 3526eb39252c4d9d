/** Where the shared limiters' keys live unless `--redis-prefix` says otherwise (docs/configuration.md). */
export const DEFAULT_REDIS_PREFIX = 'meal-export:';

/**
 * A limiter key: under the configured prefix, with its subject (an API key id, a client
 * address) in a hash tag `{...}`, so everything one subject's script touches hashes to one
 * Redis Cluster slot, as a multi-key script there requires.
 */
export function redisLimiterKey(prefix: string, kind: 'rate' | 'auth-failures', subject: string): string {
  return `${prefix}${kind}:{${subject}}`;
}
