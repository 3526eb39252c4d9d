import { both, cell, keptBlockHead, rowTable, type KeptBlock } from './report-section.js';

/**
 * The report's import section, between markers of its own, kept row by row
 * as the long-poll and webhooks blocks are: `--only import-memory` rewrites its rows alone.
 */
export const IMPORT_BEGIN = '<!-- import:begin (written by npm run bench) -->';
export const IMPORT_END = '<!-- import:end -->';

export const importBlock: KeptBlock = (rows, machine, command, loads) => {
  if (rows.length === 0) return undefined;
  return [
    ...keptBlockHead(IMPORT_BEGIN, 'Import memory', machine, command, loads),
    ...rowTable({
      columns: [
        'store',
        'baseline (20 k meals): peak RSS / anon MB',
        '200 k: peak RSS / anon MB',
        '200 k / baseline (RSS / anon)',
        '1 M: peak RSS / anon MB',
        '1 M / baseline (RSS / anon)',
        'anon 1 M / 200 k',
        'meals/s (200 k / 1 M)',
        'load avg',
      ],
      rows,
      cells: (row) => [
        row.name,
        both(row, 'baseline_peak_rss_mb', 'baseline_peak_anon_mb'),
        both(row, 'peak_rss_200k_mb', 'peak_anon_200k_mb'),
        both(row, 'ratio_200k', 'anon_ratio_200k'),
        both(row, 'peak_rss_1m_mb', 'peak_anon_1m_mb'),
        both(row, 'ratio_1m', 'anon_ratio_1m'),
        cell(row.anon_ratio_1m_vs_previous),
        both(row, 'meals_per_s_200k', 'meals_per_s_1m'),
        cell(row.load_avg),
      ],
      note:
        '`meals import FILE --json` of a JSON Lines file of synthetic meals (no ids: each import makes its own) for a new ' +
        'user, each import a process of its own, one after the other on one store; the baseline is the same command on ' +
        '20 000 meals (ten batches of 2000) in the same run. Measured inside the command ' +
        '(bench/harness/max-rss-on-exit.mjs, preloaded): **peak RSS** is `VmHWM`, the peak of everything resident (the ' +
        'pages of the node binary too; the import reads SQLite without its memory map, whose pages would count here ' +
        'and grow with the store); **anon** is the largest `RssAnon` (its own heap and stacks) sampled ' +
        'every 20 ms. Flat means ratios near 1: after a few batches V8 keeps its heap at one size (an import of 1000 ' +
        'meals ends before, at about 65 MB of RSS and 21 MB anon). Before the change a 200 k import (64 MB) peaked at 343 MB on ' +
        'SQLite and 985 MB on PostgreSQL, growing with the file.',
    }),
    IMPORT_END,
  ].join('\n');
};
