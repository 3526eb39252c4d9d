import type { DatasetShape } from './options.js';
import type { ServerProcess } from './processes.js';

/** A deployment the request scenarios run against: its store, its running server, its data. */
export interface Deployment {
  /** Row names start with it: '' for the embedded default (SQLite), `pg-redis-` for scale-out. */
  readonly rowPrefix: string;
  readonly label: string;
  /** The store, as `--db` takes it (a SQLite path or a postgres:// URL). */
  readonly db: string;
  readonly server: ServerProcess;
  readonly shape: DatasetShape;
}
