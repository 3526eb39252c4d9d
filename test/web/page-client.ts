import { request, type ServedApp } from '../support/server.js';

/** The app page's address, from the server's log line (stdout carries only the API's). */
export async function appPageUrl(server: ServedApp): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const m = /"url":"(https?:\/\/[^"]+)"[^\n]*"msg":"app page listening"/.exec(server.logs());
    if (m?.[1] !== undefined) return m[1];
    if (Date.now() > deadline) throw new Error(`no "app page listening" line in the logs:\n${server.logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface PageResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The bytes as they came over the wire (a byte order mark included). */
  readonly raw: Buffer;
}

/** One HTTPS request to the app page from Node (as a forger would send it), self-signed certificate accepted. */
export function pageRequest(
  base: string,
  options: { method?: string; path: string; headers?: Record<string, string>; form?: Record<string, string> },
): Promise<PageResponse> {
  const url = new URL(base);
  const body = options.form === undefined ? undefined : new URLSearchParams(options.form).toString();
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  return request(
    { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) },
    { method: options.method ?? (body === undefined ? 'GET' : 'POST'), path: options.path, headers, body },
  );
}

/** The token of a login link. */
export function tokenOf(link: string): string {
  return new URL(link).searchParams.get('token') ?? '';
}

/** A form's answer as a browser shows it: its status, and the page it opens. */
export interface FormAnswer {
  readonly status: number;
  /** Where a 303 sends the browser; undefined when the answer is a page itself. */
  readonly location: string | undefined;
  readonly text: string;
}

/**
 * A form's answer followed as a browser follows it: a 303 to the page it names, asked for with
 * the session's cookie (where the form's result is shown: docs/app.md#what-a-form-did).
 */
export async function asShown(base: string, answer: PageResponse, cookie: string): Promise<FormAnswer> {
  const location = answer.headers.location;
  if (answer.status !== 303 || typeof location !== 'string') {
    return { status: answer.status, location: undefined, text: answer.text };
  }
  const page = await pageRequest(base, { path: location, headers: { cookie } });
  return { status: answer.status, location, text: page.text };
}
