import type { Database } from 'better-sqlite3';
import { APP_PAGE_ORIGIN_SETTING, CURSOR_SECRET_SETTING, type SettingsStore } from '../settings-store.js';
import type { Implementation } from '../guarded-concerns.js';

/** SettingsStore on SQLite: the `settings` table, the cursor secret read once. */
export function createSqliteSettings(db: Database): Implementation<SettingsStore> {
  const read = db.prepare<[string], Buffer>('SELECT value FROM settings WHERE name = ?').pluck();
  const save = db.prepare<[string, Buffer]>(
    'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  );
  let secret: Buffer | undefined;
  return {
    cursorSecret() {
      secret ??= read.get(CURSOR_SECRET_SETTING);
      if (secret === undefined) throw new Error('the store has no cursor secret');
      return secret;
    },
    recordAppPageOrigin(origin) {
      save.run(APP_PAGE_ORIGIN_SETTING, Buffer.from(origin, 'utf8'));
    },
    appPageOrigin: () => read.get(APP_PAGE_ORIGIN_SETTING)?.toString('utf8'),
  };
}
