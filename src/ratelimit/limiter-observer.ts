/**
 * What the limiters report for /metrics: each decision, by limiter and by the backend that
 * made it, and each switch between the shared store and the in-process fallback.
 */
export interface LimiterObserver {
  decision(limiter: 'rate' | 'auth_failures', backend: 'redis' | 'memory', allowed: boolean): void;
  fallback(limiter: 'rate' | 'auth_failures'): void;
  recovered(limiter: 'rate' | 'auth_failures'): void;
}

export const NO_LIMITER_OBSERVER: LimiterObserver = {
  decision() {},
  fallback() {},
  recovered() {},
};
