/** JSON Lines of every user's history, for the tests of its import (meals-io/all-users-import.ts). */
export interface Line {
  readonly userId?: string;
  readonly id: string;
  readonly title?: string;
  readonly sourceVersion?: number;
  readonly caloriesTotal?: unknown;
  readonly utcOffset?: string;
}

export function jsonl(lines: readonly Line[]): string {
  return lines
    .map(({ title, caloriesTotal, utcOffset, ...line }) =>
      JSON.stringify({
        ...line,
        description: 'about it',
        title: title ?? `meal ${line.id}`,
        type: 'lunch',
        date: '2025-06-01T12:00:00.000+02:00',
        utcOffset: utcOffset ?? '+02:00',
        caloriesTotal: caloriesTotal ?? 500,
        proteins_g: 20,
        fats_g: null,
        carbs_g: 1,
        fibers_g: null,
        sodium_mg: null,
        iron_mg: null,
        calcium_mg: null,
      }),
    )
    .join('\n');
}

export async function* piecesOf(text: string): AsyncGenerator<string> {
  // Small pieces: records cut across reads, as a file or a pipe gives them.
  for (let i = 0; i < text.length; i += 97) yield text.slice(i, i + 97);
}
