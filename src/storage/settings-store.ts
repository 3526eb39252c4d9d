/** The `settings` rows: the cursor secret (bytes), and the app page's origin (UTF-8). */
export const CURSOR_SECRET_SETTING = 'cursor_secret';
export const APP_PAGE_ORIGIN_SETTING = 'app_page_origin';

/** Values the store holds for every instance on it. */
export interface SettingsStore {
  /** The secret that signs cursors: created once, by the first migration, shared by every instance. */
  cursorSecret(): Promise<Buffer>;
  /**
   * The app page's origin, recorded by `serve --app-port` at start so that `users login-link`
   * points at the running page. The last recording wins; undefined until a page started.
   */
  recordAppPageOrigin(origin: string): Promise<void>;
  appPageOrigin(): Promise<string | undefined>;
}
