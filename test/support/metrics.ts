import http from 'node:http';
import { waitFor } from './wait-for.js';

export interface Scraped {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
}

/** GET a path of the admin listener (plain HTTP on 127.0.0.1). */
export function scrape(adminUrl: string | undefined, path = '/metrics'): Promise<Scraped> {
  if (adminUrl === undefined) throw new Error('the server was started without an admin port');
  return new Promise((resolve, reject) => {
    http
      .get(`${adminUrl}${path}`, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'],
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      })
      .on('error', reject);
  });
}

export interface Sample {
  readonly labels: Record<string, string>;
  readonly value: number;
}

const SAMPLE_RE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL_RE = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of one metric in Prometheus text format, with their labels. */
export function samples(text: string, name: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = SAMPLE_RE.exec(line);
    if (m === null || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const [, label, value] of (m[2] ?? '').matchAll(LABEL_RE)) {
      if (label !== undefined && value !== undefined) labels[label] = value;
    }
    found.push({ labels, value: Number(m[3]) });
  }
  return found;
}

/** The sum of a metric's samples whose labels include every one given (0 when none match). */
export function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text, name)
    .filter((s) => Object.entries(labels).every(([label, value]) => s.labels[label] === value))
    .reduce((sum, s) => sum + s.value, 0);
}

/**
 * Resolves once the server holds `count` long polls (its /metrics says so), so that a test
 * writes only after its request is held, not after a guess of how long that takes.
 */
export async function untilHeld(adminUrl: string | undefined, count: number, timeoutMs = 10_000): Promise<void> {
  let held = 0;
  await waitFor(
    () => `${count} long polls held (the last /metrics said ${held})`,
    async () => (held = sampleSum((await scrape(adminUrl)).text, 'meal_export_long_polls_held')) === count,
    timeoutMs,
  );
}
