import { loadRow, ratio, type ScenarioRow } from '../harness/results.js';
import type { Scenario } from '../harness/scenario.js';
import { deltaPollRequest } from './delta-poll.js';

/**
 * GET /v1/key against the delta poll, same server, same key, one after the other: what a
 * client's free question about its own key costs the server next to the request it makes
 * most (goal: no more CPU per request). No ceiling: its body names the time it is answered,
 * so no two answers are the same bytes.
 */
export const keyInfo: Scenario = {
  name: 'key-info',
  question: 'What does GET /v1/key cost the server, against a delta poll?',
  async run(context): Promise<ScenarioRow[]> {
    const { server } = context.embedded;
    const { request, key } = await deltaPollRequest(context, context.embedded);
    const poll = await context.measure(server, request, key);
    const info = await context.measure(server, '/v1/key', key);
    return [
      loadRow('key-info-delta-poll', poll, undefined, { deployment: context.embedded.label }),
      loadRow('key-info', info, undefined, {
        deployment: context.embedded.label,
        cpu_vs_delta_poll: ratio(info.cpuUsPerReq, poll.cpuUsPerReq),
      }),
    ];
  },
};
