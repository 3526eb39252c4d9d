import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planSharedSuite, type PlannedNode, type SuiteBuilder } from '../support/shared-suite.js';

const nothing = async () => undefined;

function body({ test: it, describe }: SuiteBuilder): void {
  it('reads a page', nothing);
  describe('writes', () => {
    it('writes a meal', nothing);
    it('deletes a meal', nothing);
  });
}

/** Each case's name and skip reason, groups flattened. */
function skips(nodes: readonly PlannedNode[]): [string, string | undefined][] {
  return nodes.flatMap((node) => (node.kind === 'case' ? [[node.name, node.skip]] : skips(node.children)));
}

test('a case a backend skips is planned skipped with its reason, every other case runs', () => {
  const plan = planSharedSuite(
    { name: 'Backend', skip: [{ reason: 'this backend has no deletes', cases: ['deletes a meal'] }] },
    'storage: test',
    body,
  );
  assert.deepEqual(skips(plan), [
    ['reads a page', undefined],
    ['writes a meal', undefined],
    ['deletes a meal', 'this backend has no deletes'],
  ]);
});

test('a skip list naming no case of the suite is an error that names it, so no skip outlives its case', () => {
  assert.throws(
    () =>
      planSharedSuite(
        { name: 'Backend', skip: [{ reason: 'renamed since', cases: ['writes a meal', 'removes a meal'] }] },
        'storage: test',
        body,
      ),
    /Backend storage: test: the skip list names no case of this suite: "removes a meal"/,
  );
});

test('two cases titled alike, or a case skipped twice, are errors: a skip must name one case', () => {
  assert.throws(
    () =>
      planSharedSuite({ name: 'Backend' }, 'storage: test', ({ test: it }) => {
        it('reads a page', nothing);
        it('reads a page', nothing);
      }),
    /two cases are titled "reads a page"/,
  );
  assert.throws(
    () =>
      planSharedSuite(
        {
          name: 'Backend',
          skip: [
            { reason: 'one', cases: ['reads a page'] },
            { reason: 'two', cases: ['reads a page'] },
          ],
        },
        'storage: test',
        body,
      ),
    /"reads a page" is skipped twice/,
  );
});
