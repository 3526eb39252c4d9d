import { verifyWebhook } from '../src/client/index.js';
import { startTrustedReceiver } from '../test/support/trusted-receiver.js';
import type { ReceivedCall } from '../test/webhooks/receiver.js';

/** One endpoint as the receiver sees it: every call, and the events it accepted in order. */
export interface EndpointLog {
  readonly index: number;
  readonly userId: string;
  readonly secret: string;
  calls: number;
  refused: number;
  badSignature: number;
  /** Calls with a `webhook-id` already accepted (a call whose record was lost to a kill is sent again). */
  repeats: number;
  /** Accepted events whose span started before the previous one's ended, or ended before it. */
  overlaps: number;
  outOfOrder: number;
  /** The `through` of the newest accepted event (ms); 0 before any. */
  through: number;
  /** Each accepted event's `from` and arrival (ms). */
  readonly deliveries: Array<{ readonly fromMs: number; readonly atMs: number }>;
  /** When each refusal was answered (ms): the events behind it waited too. */
  readonly refusedAtMs: number[];
  readonly problems: string[];
}

export interface WebhookSink {
  /** `serve`'s flags to reach the receiver: private addresses allowed, its certificate trusted. */
  readonly serveArgs: readonly string[];
  /** The URL of endpoint `index` (by name, `localhost`, as a user would register it). */
  urlOf(index: number): string;
  /** Starts keeping calls to endpoint `index`, signed with `secret`. */
  register(index: number, userId: string, secret: string): void;
  readonly endpoints: readonly EndpointLog[];
  /** Whether about one call in `refuseOneIn` is answered 500; off while the soak drains. */
  setRefusing(on: boolean): void;
  /** Calls to a path no endpoint has. */
  strays(): number;
  close(): Promise<void>;
}

const KEPT_PROBLEMS = 5;

/**
 * A local HTTPS receiver for every endpoint (the tests' trusted receiver,
 * test/support/trusted-receiver.ts), which verifies each call's signature with the SDK's
 * `verifyWebhook`, refuses about one in `refuseOneIn` with a 500, and checks the accepted
 * events of each endpoint (docs/webhooks.md#the-call): each new `webhook-id` starts after the
 * previous event's `through`, repeats of one already accepted counted apart.
 */
export async function startWebhookSink(refuseOneIn: number): Promise<WebhookSink> {
  const endpoints: EndpointLog[] = [];
  const accepted = new Set<string>();
  let refusing = true;
  let strays = 0;

  const problem = (endpoint: EndpointLog, text: string) => {
    if (endpoint.problems.length < KEPT_PROBLEMS) endpoint.problems.push(text);
  };

  function answer(endpoint: EndpointLog, call: ReceivedCall): number {
    endpoint.calls += 1;
    let event;
    try {
      event = verifyWebhook(endpoint.secret, call.headers, call.body);
    } catch (error) {
      endpoint.badSignature += 1;
      problem(endpoint, `refused signature: ${error instanceof Error ? error.message : String(error)}`);
      return 400;
    }
    // Only a receiver that has delivered is tried every 30 s between the schedule's steps
    // (docs/webhooks.md#the-call): refusing an endpoint's first calls would leave it to the
    // schedule's 5-minute step, which is the receiver-down case, not this one.
    if (refusing && endpoint.deliveries.length > 0 && Math.random() * refuseOneIn < 1) {
      endpoint.refused += 1;
      endpoint.refusedAtMs.push(Date.now());
      return 500;
    }
    const id = String(call.headers['webhook-id']);
    if (accepted.has(id)) {
      endpoint.repeats += 1;
      return 204;
    }
    accepted.add(id);
    if (event.type !== 'meals.changed') return 204;
    if (event.data.userId !== endpoint.userId) problem(endpoint, `${id} names user ${event.data.userId}`);
    const from = Date.parse(event.data.from);
    const through = Date.parse(event.data.through);
    if (from <= endpoint.through) {
      endpoint.overlaps += 1;
      problem(endpoint, `${id} from ${event.data.from} is not after ${new Date(endpoint.through).toISOString()}`);
    }
    if (through < endpoint.through) endpoint.outOfOrder += 1;
    endpoint.through = Math.max(endpoint.through, through);
    endpoint.deliveries.push({ fromMs: from, atMs: Date.now() });
    return 204;
  }

  const receiver = await startTrustedReceiver((response, call) => {
    const index = Number(/^\/hook\/(\d+)$/.exec(call.path)?.[1] ?? -1);
    const endpoint = endpoints.find((e) => e.index === index);
    if (endpoint === undefined) {
      strays += 1;
      response.writeHead(404).end();
      return;
    }
    response.writeHead(answer(endpoint, call)).end();
  });
  // The tests' receiver keeps every call; the soak keeps what it checks.
  const forget = setInterval(() => receiver.calls.splice(0), 1000);

  return {
    serveArgs: receiver.serveArgs,
    urlOf: (index) => `https://localhost:${receiver.port}/hook/${index}`,
    register(index, userId, secret) {
      endpoints.push({
        index,
        userId,
        secret,
        calls: 0,
        refused: 0,
        badSignature: 0,
        repeats: 0,
        overlaps: 0,
        outOfOrder: 0,
        through: 0,
        deliveries: [],
        refusedAtMs: [],
        problems: [],
      });
    },
    endpoints,
    setRefusing(on) {
      refusing = on;
    },
    strays: () => strays,
    async close() {
      clearInterval(forget);
      await receiver.close();
    },
  };
}
