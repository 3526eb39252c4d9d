import type { Sql } from 'postgres';
import { APP_PAGE_ORIGIN_SETTING, CURSOR_SECRET_SETTING, type SettingsStore } from '../settings-store.js';

/** SettingsStore on PostgreSQL: the `settings` table, the cursor secret read once. */
export function createPostgresSettings(sql: Sql): SettingsStore {
  async function read(name: string): Promise<Buffer | undefined> {
    const [row] = await sql.unsafe<{ value: Buffer }[]>('SELECT value FROM settings WHERE name = $1', [name]);
    return row?.value;
  }
  let secret: Buffer | undefined;
  return {
    async cursorSecret() {
      secret ??= await read(CURSOR_SECRET_SETTING);
      if (secret === undefined) throw new Error('the store has no cursor secret');
      return secret;
    },
    async recordAppPageOrigin(origin) {
      await sql.unsafe(
        'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        [APP_PAGE_ORIGIN_SETTING, Buffer.from(origin, 'utf8')],
      );
    },
    appPageOrigin: async () => (await read(APP_PAGE_ORIGIN_SETTING))?.toString('utf8'),
  };
}
