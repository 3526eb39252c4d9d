import type { SoakReport } from './report.js';

const mb = (kb: number | undefined) => (kb === undefined ? '?' : `${(kb / 1024).toFixed(1)} MB`);

/** The report as a person reads it: the figures, then each check with PASS or FAIL. */
export function reportText(report: SoakReport): string {
  const lines: string[] = [];
  const { options } = report;
  lines.push(
    `soak of ${report.startedAt}: ${options.minutes} min, ${report.store}, ${options.instances} instance(s), kill every ${options.killEverySeconds ?? '-'} s`,
  );
  for (const i of report.instances) {
    const exits = i.exits.map((e) => `${e.cause} pid ${e.pid} (${e.code ?? e.signal})`).join(', ');
    lines.push(
      `  instance ${i.index}: RSS ${mb(i.start?.rssKb)} -> ${mb(i.end?.rssKb)}, open files ${i.start?.openFiles ?? '?'} -> ${i.end?.openFiles ?? '?'}; log: ${i.log.warn} warn, ${i.log.error} error; exits: ${exits}`,
    );
    for (const line of i.log.errorLines) lines.push(`    ${line.slice(0, 300)}`);
  }
  for (const k of report.kills)
    lines.push(
      `  kill at ${k.atS} s: instance ${k.instance} (pid ${k.pid}), back in ${k.downMs} ms${k.restartError === undefined ? '' : `: ${k.restartError}`}`,
    );
  const writes = Object.entries(report.writes).sort(([a], [b]) => a.localeCompare(b));
  lines.push(`  writes: ${writes.map(([what, n]) => `${what} ${n}`).join(', ')}`);
  lines.push(
    `  followers: ${report.followers.map((f) => `${f.userId} ${f.meals} meals, ${f.pages} pages, ${f.digestsMatched} digests${f.restarts > 0 ? `, ${f.restarts} restarts` : ''}`).join('; ')}`,
  );
  lines.push(`  readers: ${report.readers.pages} polls, ${report.readers.keyInfos} GET /v1/key`);
  for (const e of report.webhooks.endpoints) {
    lines.push(
      `  endpoint ${e.index} (${e.userId}): ${e.calls} calls, ${e.accepted} events, ${e.refused} refused, ${e.repeats} repeats; lag ${e.maxLagUnrefusedS} s max with no refusal near, ${e.maxLagS} s with refusals, ${e.maxLagAcrossKillS} s across a kill${e.heard ? '' : '; NOT heard of the last change'}`,
    );
    for (const problem of e.problems) lines.push(`    ${problem}`);
    if (e.worst !== undefined && e.maxOverdueS > 10) {
      lines.push(
        `    ${e.maxOverdueS} s past the schedule: changes from ${e.worst.from}, called ${e.worst.at}, ${e.worst.refusals} refusals meanwhile${e.worst.acrossKill ? ', across a kill' : ''}`,
      );
    }
  }
  lines.push(
    `  statuses: ${report.statuses.map((s) => `${s.surface} ${s.outcome}${s.expected ? '' : ' (unexpected)'}: ${s.count}`).join(', ')}`,
  );
  for (const u of report.unexpected) lines.push(`  unexpected at ${u.at}: ${u.surface} ${u.outcome}: ${u.detail}`);
  for (const f of report.followers) for (const problem of f.problems) lines.push(`  ${f.userId}: ${problem}`);
  for (const c of report.checks) lines.push(`${c.ok ? 'PASS' : 'FAIL'} ${c.name}: ${c.detail}`);
  lines.push(report.ok ? 'soak passed' : 'soak FAILED');
  return lines.join('\n');
}
