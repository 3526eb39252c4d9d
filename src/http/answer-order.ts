import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface AnswerOrder {
  /** Records the connection's latest request and its response (the front door calls it). */
  note(request: IncomingMessage, response: ServerResponse): void;
  /**
   * Runs `answer`, the refusal of bytes the parser could not read, once the answers in flight
   * on the connection are sent. When the fault is in the body of a request already handed
   * over, that request has its answer: none is added, and the connection closes after it.
   */
  afterAnswers(socket: Socket, answer: () => void): void;
}

/**
 * Keeps a connection's answers in the order of its requests (RFC 9112 section 9.3). The
 * parser's refusals are written straight to the socket (listener/client-error.ts), and would
 * otherwise overtake the answer of a complete request read just before the bad bytes (a
 * pipelined request, still waiting for its page), or follow it as a second, unasked-for answer
 * (a body whose framing breaks after its request was answered).
 */
export function createAnswerOrder(): AnswerOrder {
  const latest = new WeakMap<Socket, { request: IncomingMessage; response: ServerResponse }>();
  return {
    note(request, response) {
      latest.set(request.socket, { request, response });
    },
    afterAnswers(socket, answer) {
      const exchange = latest.get(socket);
      if (exchange === undefined) {
        answer();
        return;
      }
      const { request, response } = exchange;
      if (!request.complete) {
        if (response.writableFinished) {
          socket.end();
          return;
        }
        if (!response.headersSent) response.setHeader('connection', 'close');
        response.once('close', () => socket.end());
        return;
      }
      if (response.writableFinished) answer();
      else response.once('close', answer);
    },
  };
}
