import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseMealRecord } from '../../src/meals-io/meal-record.js';
import { PROJECT_ROOT } from '../support/project.js';

// docs/host-api.md tells a back end that only has UTC what to send: its expression, run by
// python3 as the page writes it, must give a date the service reads as "day unknown", not as
// a person at UTC+0 (which Python's isoformat() of a UTC datetime would say with +00:00).
const PAGE = readFileSync(path.join(PROJECT_ROOT, 'docs', 'host-api.md'), 'utf8');

function python(): string | false {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'python3 is not installed here';
  }
}

test(
  "the UTC-only back end's expression of docs/host-api.md sends Z, so the meal's day stays unknown",
  { skip: python() },
  () => {
    const expression = /only has UTC sends `Z`, so that\s+the meal's day stays unknown: `([^`]+)`/.exec(PAGE)?.[1];
    assert.ok(expression !== undefined, 'the page shows what a UTC-only back end sends');
    // 19:30 in San Francisco on the 25th, an aware datetime as the back end holds it.
    const script = [
      'from datetime import datetime, timezone',
      'from types import SimpleNamespace',
      'from zoneinfo import ZoneInfo',
      'meal = SimpleNamespace(eaten_at=datetime(2026, 11, 25, 19, 30, tzinfo=ZoneInfo("America/Los_Angeles")))',
      `print(${expression.replace(/\s+/g, ' ')})`,
    ].join('\n');
    const date = execFileSync('python3', ['-c', script], { encoding: 'utf8' }).trim();
    assert.match(date, /Z$/);
    const parsed = parseMealRecord({ type: 'dinner', date }, 'json');
    if (!parsed.ok) return assert.fail(parsed.message);
    assert.equal(parsed.meal.date, Date.UTC(2026, 10, 26, 3, 30));
    assert.equal(parsed.meal.utcOffset, null, 'the day unknown, not UTC+0');
  },
);
