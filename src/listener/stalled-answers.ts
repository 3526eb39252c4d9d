import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { socketInode, unacknowledgedBytes } from './tcp-send-queue.js';

export interface StalledAnswerOptions {
  /** An answer whose client has taken none of its bytes for longer than this is cut off. */
  readonly stallMs: number;
  /** How often the answers being sent are looked at; `stallMs` is a multiple of it. */
  readonly checkMs: number;
}

export interface StalledAnswers {
  /**
   * Watches an answer handed whole to its socket ('prefinish') until it has left the process;
   * 'until-finished': one sent in slices, watched from its first even when nothing is held at
   * that moment, until its last byte is in the kernel. Watching an answer watched already does nothing.
   */
  watch(response: ServerResponse, until?: 'until-finished'): void;
}

/**
 * Node's handle under a socket: a TCPWrap, or for TLS a TLSWrap over one (its `_parent`, set by
 * node:_tls_wrap). Not public API, so every field is read as optional: without them, only the
 * socket's own buffer and the kernel's queue are looked at.
 */
interface NodeStreamHandle {
  readonly fd?: number;
  /** Bytes libuv has not handed to the kernel yet (a TLSWrap's own is not kept up to date). */
  readonly writeQueueSize?: number;
  readonly _parent?: NodeStreamHandle;
}

function tcpHandleOf(socket: Socket): NodeStreamHandle | undefined {
  const handle = (socket as Socket & { _handle?: NodeStreamHandle | null })._handle ?? undefined;
  return handle?._parent ?? handle;
}

/** What the process still holds of the answer: in the socket's stream, then in libuv's queue. */
function heldInProcess(socket: Socket): number {
  return socket.writableLength + (tcpHandleOf(socket)?.writeQueueSize ?? 0);
}

interface Watched {
  readonly socket: Socket;
  readonly family: 'IPv4' | 'IPv6';
  /** The socket's inode, for the kernel's table; null once looked up in vain. */
  inode: number | null | undefined;
  /** What was left at the last check (undefined before the first, or when the kernel does not say). */
  inProcess: number | undefined;
  inKernel: number | undefined;
  /** Checks in a row that found nothing moved. */
  quietChecks: number;
}

/**
 * Cuts the connection of an answer whose client takes none of its bytes for `stallMs`
 * (listener/connection-limits.ts says why the kernel must be asked). Every `checkMs`, one timer for
 * all the answers being sent looks at what is left of each, in the process and unacknowledged
 * in the kernel (one read of the kernel's table for all of them). An answer is cut at the check
 * that finds neither moved since `stallMs` before: between `stallMs` and `stallMs + checkMs`
 * after the client's last byte, and never while its client takes a byte in every `stallMs`.
 */
export function createStalledAnswers(options: StalledAnswerOptions): StalledAnswers {
  const quietChecksAllowed = Math.ceil(options.stallMs / options.checkMs);
  const answers = new Map<ServerResponse, Watched>();
  let timer: NodeJS.Timeout | undefined;

  function check(): void {
    const inodes = { IPv4: new Set<number>(), IPv6: new Set<number>() };
    for (const watched of answers.values()) {
      watched.inode ??= socketInode(tcpHandleOf(watched.socket)?.fd ?? -1) ?? null;
      if (watched.inode !== null) inodes[watched.family].add(watched.inode);
    }
    const unacknowledged = {
      IPv4: unacknowledgedBytes('IPv4', inodes.IPv4),
      IPv6: unacknowledgedBytes('IPv6', inodes.IPv6),
    };
    for (const [response, watched] of answers) {
      const inProcess = heldInProcess(watched.socket);
      const inKernel = watched.inode === null ? undefined : unacknowledged[watched.family].get(watched.inode ?? -1);
      if (inProcess !== watched.inProcess || inKernel !== watched.inKernel) {
        watched.inProcess = inProcess;
        watched.inKernel = inKernel;
        watched.quietChecks = 0;
      } else {
        watched.quietChecks += 1;
        if (watched.quietChecks < quietChecksAllowed) continue;
        answers.delete(response);
        watched.socket.destroy();
      }
    }
    if (answers.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  return {
    watch(response, until) {
      const socket = response.socket;
      if (socket === null || socket.destroyed || answers.has(response)) return;
      // Nothing held: the whole answer is in the kernel already (a small one over plain HTTP).
      if (until !== 'until-finished' && heldInProcess(socket) === 0) return;
      answers.set(response, {
        socket,
        // A dual-stack listener's IPv4 clients are IPv4-mapped IPv6 addresses, in tcp6.
        family: socket.remoteFamily === 'IPv6' ? 'IPv6' : 'IPv4',
        inode: undefined,
        inProcess: undefined,
        inKernel: undefined,
        quietChecks: 0,
      });
      // 'finish': every byte is in the kernel; 'close': the connection is gone.
      const forget = () => answers.delete(response);
      response.once('finish', forget);
      response.once('close', forget);
      if (timer === undefined) {
        timer = setInterval(check, options.checkMs);
        timer.unref();
      }
    },
  };
}
