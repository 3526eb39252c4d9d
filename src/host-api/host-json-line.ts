import type { FastifyInstance } from 'fastify';

/**
 * Ends every JSON answer of the host API with a newline (docs/host-api.md#errors), as a shell
 * tool's output does: a backend's engineer calls it with curl, whose answers would otherwise
 * run together on one line. An answer is JSON text either way, so no client parses it
 * differently. `/healthz` stays `{"ok":true}` exactly, as on every listener; the public
 * listener's answers stay as they are, byte for byte: its `/v1/meals` is written without
 * parsing or copying (docs/architecture.md#the-hot-path-and-why).
 */
export function endJsonAnswersWithNewline(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof payload !== 'string' || typeof type !== 'string' || !type.startsWith('application/json')) {
      return payload;
    }
    if (request.routeOptions.url === '/healthz' || payload.endsWith('\n')) return payload;
    return `${payload}\n`;
  });
}
