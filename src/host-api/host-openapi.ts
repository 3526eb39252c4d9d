/** The host API's OpenAPI 3.1 document (docs/host-api.md): built once at start. */
export function buildHostOpenApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'meal-export host API', version },
    paths: {},
  };
}
