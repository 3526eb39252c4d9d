/**
 * The meal the host API's document shows in its examples (docs/host-api.md): lunch at 13:15 in
 * Paris, the offset written in `date` kept as the meal's `utcOffset`.
 */

export const RECORD = {
  title: 'Lunch',
  description: 'Chicken salad with bread',
  type: 'lunch',
  date: '2025-03-14T13:15:00+01:00',
  caloriesTotal: 520,
  proteins_g: 38,
  fats_g: 22,
  carbs_g: 31,
  fibers_g: 6,
  sodium_mg: 890,
  iron_mg: 2.4,
  calcium_mg: null,
};

const { title, description, type, date: _writtenDate, ...nutrients } = RECORD;

/** The same meal as the store answers it: `date` in UTC, its offset kept beside it. */
export const STORED_MEAL = {
  id: 'm_01J9ZQ4W8K',
  description,
  title,
  type,
  date: '2025-03-14T12:15:00.000Z',
  utcOffset: '+01:00',
  ...nutrients,
  modifiedAt: '2025-03-14T12:16:03.512Z',
  deleted: false,
  sourceVersion: 17,
};

/** Two lines of an import. */
export const JSON_LINES = [
  JSON.stringify({ id: STORED_MEAL.id, ...RECORD, sourceVersion: 17 }),
  JSON.stringify({ id: 'm_01J9ZQ7T2C', type: 'breakfast', date: '2025-03-15T07:30:00Z', caloriesTotal: 350 }),
].join('\n');

/** Two lines of the app's history, two users'. */
export const HISTORY_LINES = [
  JSON.stringify({ userId: 'u_42', id: STORED_MEAL.id, ...RECORD, sourceVersion: 17 }),
  JSON.stringify({
    userId: 'u_43',
    id: 'm_01J9ZQ7T2C',
    type: 'breakfast',
    date: '2025-03-15T07:30:00Z',
    caloriesTotal: 350,
  }),
].join('\n');
