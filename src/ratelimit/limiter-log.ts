/** What the limiters log: the switches to and from the in-process fallback. A pino logger fits. */
export interface LimiterLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}
