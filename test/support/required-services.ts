/**
 * The scale-out tests need a real PostgreSQL and Redis. Without them, `npm test` skips those
 * tests and says why; CI sets MEAL_EXPORT_TEST_REQUIRE_SERVICES=1 (.ci/run starts both), so
 * there a missing server fails the run instead of skipping quietly.
 */
export function skipUnlessRequired(reason: string | undefined): string | undefined {
  if (reason !== undefined && process.env.MEAL_EXPORT_TEST_REQUIRE_SERVICES === '1') {
    throw new Error(`${reason} (MEAL_EXPORT_TEST_REQUIRE_SERVICES=1: the scale-out tests must run here)`);
  }
  return reason;
}
