/**
 * The one table of Meal fields (docs/api.md#the-call): each field's name, kind, unit, words and
 * examples, in contract order. The order here is the order of every JSON body, CSV header and
 * OpenAPI schema; the domain types (meal.ts), the encoder (meal-encoder.ts), the record parser
 * (meals-io/meal-record.ts), the CSV layout (meals-io/csv-*.ts), both OpenAPI documents and
 * the synthetic meals are made from it. Adding a field: docs/development.md#adding-a-meal-field.
 */

/**
 * What a field holds, which decides its JSON type, its null rule and how a record gives it:
 * - `id`: a string, made when a record has none;
 * - `text`: a string, `""` when empty, never null;
 * - `type`: one of MEAL_TYPES;
 * - `instant`: a UTC instant (epoch ms inside, `YYYY-MM-DDTHH:mm:ss.sssZ` outside);
 * - `offset`: a UTC offset `±HH:MM`, or null;
 * - `number`: a number 0 or more, or null;
 * - `clock`: the store's change clock (an instant no record sets).
 */
export type MealFieldKind = 'id' | 'text' | 'type' | 'instant' | 'offset' | 'number' | 'clock';

export interface MealFieldSpec {
  readonly name: string;
  readonly kind: MealFieldKind;
  /** Whether a record (an import line, a host API body) must give it. */
  readonly required: boolean;
  /** What the documents say of it. */
  readonly description: string;
  /** A number's unit (`kcal`, `g`, `mg`), as the field's name ends with it. */
  readonly unit?: string;
  /** Values as the API writes them, for the documents' schemas. */
  readonly examples: readonly (string | number | null)[];
  /**
   * The version of stored meal bodies that added it (0: the first fields). A field added
   * later is written `null` into every older body by the store's rewrite
   * (storage/meal-body-rewrite.ts); an import's CSV header may leave it out.
   */
  readonly since: number;
}

export const MEAL_TYPES = ['breakfast', 'lunch', 'dinner', 'snack'] as const;
export type MealType = (typeof MEAL_TYPES)[number];

const UNIT_WORDS = { kcal: 'Kilocalories', g: 'Grams', mg: 'Milligrams' } as const;
const nutrient = <N extends string>(name: N, unit: keyof typeof UNIT_WORDS, examples: readonly (number | null)[]) =>
  ({
    name,
    kind: 'number',
    required: false,
    description: `${UNIT_WORDS[unit]}; null when unknown.`,
    unit,
    examples,
    since: 0,
  }) as const;

export const MEAL_FIELD_TABLE = [
  {
    name: 'id',
    kind: 'id',
    required: false,
    description: 'Opaque, unique across all users.',
    examples: ['m_01J9ZQ4W8K'],
    since: 0,
  },
  {
    name: 'description',
    kind: 'text',
    required: false,
    description: 'Free text; "" when empty, never null.',
    examples: ['Oatmeal with blueberries', ''],
    since: 0,
  },
  {
    name: 'title',
    kind: 'text',
    required: false,
    description: 'Free text; "" when empty, never null.',
    examples: ['Breakfast'],
    since: 0,
  },
  {
    name: 'type',
    kind: 'type',
    required: true,
    description: `One of ${MEAL_TYPES.join(', ')}.`,
    examples: ['breakfast'],
    since: 0,
  },
  {
    name: 'date',
    kind: 'instant',
    required: true,
    description: 'When the meal was eaten, in UTC.',
    examples: ['2025-03-14T07:30:00.000Z'],
    since: 0,
  },
  {
    name: 'utcOffset',
    kind: 'offset',
    required: false,
    description:
      "The offset from UTC of the local time the meal was eaten at (±HH:MM, at most 14 hours), as the app recorded it; null when the app did not say. date plus utcOffset is the person's local date and time: the day the meal belongs to.",
    examples: ['+09:00', '-08:00', '+05:45', null],
    since: 1,
  },
  nutrient('caloriesTotal', 'kcal', [350, null]),
  nutrient('proteins_g', 'g', [12.5]),
  nutrient('fats_g', 'g', [7]),
  nutrient('carbs_g', 'g', [58]),
  nutrient('fibers_g', 'g', [8]),
  nutrient('sodium_mg', 'mg', [null]),
  nutrient('iron_mg', 'mg', [2.1]),
  nutrient('calcium_mg', 'mg', [120]),
  {
    name: 'modifiedAt',
    kind: 'clock',
    required: false,
    description: 'When the meal last changed: the sync position.',
    examples: ['2025-03-14T07:31:02.118Z'],
    since: 0,
  },
] as const satisfies readonly MealFieldSpec[];

type Row = (typeof MEAL_FIELD_TABLE)[number];
export type MealField = Row['name'];
export type FieldsOfKind<K extends MealFieldKind> = Extract<Row, { kind: K }>['name'];

/** A field's value inside the service: instants are epoch milliseconds. */
type DomainValue<K extends MealFieldKind> = K extends 'number'
  ? number | null
  : K extends 'offset'
    ? string | null
    : K extends 'type'
      ? MealType
      : K extends 'instant' | 'clock'
        ? number
        : string;

/** A field's value in JSON: instants are `YYYY-MM-DDTHH:mm:ss.sssZ` strings. */
type JsonValue<K extends MealFieldKind> = K extends 'instant' | 'clock' ? string : DomainValue<K>;

/** Every field of the table, each with its domain value. */
export type MealFieldValues = { readonly [R in Row as R['name']]: DomainValue<R['kind']> };
/** Every field of the table, each as JSON carries it. */
export type MealFieldJson = { readonly [R in Row as R['name']]: JsonValue<R['kind']> };

/** A field's value as a record gives it (an import line, a host API body): text may be null. */
type RecordValue<K extends MealFieldKind> = K extends 'text' ? string | null : JsonValue<K>;
type RecordRow = Exclude<Row, { kind: 'clock' }>;

/**
 * A meal as the app records it, in JSON: the required fields (type, date) and the others
 * optional (absent: "" for text, null otherwise, a new id); the store sets the clock.
 */
export type MealRecordJson = {
  readonly [R in Extract<RecordRow, { required: true }> as R['name']]: RecordValue<R['kind']>;
} & { readonly [R in Extract<RecordRow, { required: false }> as R['name']]?: RecordValue<R['kind']> };

/** The Meal fields' names in contract order. */
export const MEAL_FIELDS: readonly MealField[] = MEAL_FIELD_TABLE.map((field) => field.name);

/** The fields of one kind, in contract order. */
export function fieldsOfKind<K extends MealFieldKind>(kind: K): readonly FieldsOfKind<K>[] {
  return MEAL_FIELD_TABLE.filter((field) => field.kind === kind).map((field) => field.name as FieldsOfKind<K>);
}

/** The newest version of stored meal bodies: the greatest `since` of the table. */
export const MEAL_BODY_VERSION = Math.max(...MEAL_FIELD_TABLE.map((field) => field.since));
