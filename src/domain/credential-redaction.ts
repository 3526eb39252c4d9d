// A credential is ASCII letters, digits and `_`: only escapes of ASCII characters can hide one.
const ASCII_ESCAPE_RE = /%([0-7][0-9A-Fa-f])/g;

/** Decodes each ASCII escape on its own, so that a malformed one elsewhere cannot stop it. */
function asciiEscapesDecoded(text: string): string {
  return text.replace(ASCII_ESCAPE_RE, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** What looks like a credential of one of these prefixes: the prefix and 4 or more base62 characters. */
export function credentialLikePattern(prefixes: readonly string[]): RegExp {
  const alternatives = prefixes.map((prefix) => prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return new RegExp(`(${alternatives})[0-9A-Za-z]{4,}`, 'g');
}

/**
 * Text safe for logs: a credential must never reach them, not even one sent in a URL by
 * mistake, percent-encoded (`mxk%5F…`) or encoded twice. Escapes of ASCII characters are
 * decoded one by one, never the whole text at once (one malformed escape such as `%ZZ`
 * anywhere would leave it all undecoded), until the text stops changing (a few rounds at most),
 * and every credential-shaped run in it becomes its prefix and `[redacted]`. Text holding no
 * credential is returned as it came, escapes and all: a log shows a URL as it was received,
 * so that `x%2Fy` and `x/y`, two ids, do not look alike (docs/operations.md#logs).
 */
export function redactCredentials(text: string, pattern: RegExp): string {
  let decoded = text;
  for (let round = 0; round < 3; round += 1) {
    const next = asciiEscapesDecoded(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  const redacted = decoded.replace(pattern, '$1[redacted]');
  return redacted === decoded ? text : redacted;
}

/**
 * Connect's secrets that have no prefix of their own (docs/connect.md#the-grant): a code, its
 * verifier, a client secret or a token sent in a URL's query by mistake are logged as
 * `code=[redacted]`; the rest of the URL as it came.
 */
const OAUTH_QUERY_SECRET_RE = /([?&](?:code|code_verifier|client_secret|token|access_token)=)[^&#]*/gi;

export function redactOAuthQuery(url: string): string {
  return url.replace(OAUTH_QUERY_SECRET_RE, '$1[redacted]');
}
