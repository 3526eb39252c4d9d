/**
 * The text as a URL, or undefined when it is not one: `URL.parse` of Node ≥ 22.1, which the
 * Node 20 this service still runs on lacks (`new URL` throws instead).
 */
export function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
