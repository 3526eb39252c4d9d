import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { syntheticMeals } from '../../src/meals-io/synthetic-meals.js';
import { DATA_DIR } from './datasets.js';

/** Where the host import's files are written for one import each, and removed after it. */
export const HOST_IMPORT_DIR = path.join(DATA_DIR, 'host-import-files');

/**
 * A JSON Lines file of `meals` synthetic meals (about 295 bytes a line), each with the id
 * `${userId}-${i}`: the host API's import requires ids, and ids are unique across users, so
 * each import writes a file of its own user's.
 */
export async function hostImportFile(userId: string, meals: number): Promise<string> {
  mkdirSync(HOST_IMPORT_DIR, { recursive: true });
  const file = path.join(HOST_IMPORT_DIR, `${userId}.jsonl`);
  const out = createWriteStream(file);
  let i = 0;
  for (const { id: _id, ...meal } of syntheticMeals('host-import', 1, meals)) {
    const line = `${JSON.stringify({ id: `${userId}-${i}`, ...meal, date: new Date(meal.date).toISOString() })}\n`;
    i += 1;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

export interface HostImportAnswer {
  readonly imported: number;
  readonly created: number;
}

/**
 * `POST /host/v1/users/{userId}/meals/import` of `file`, streamed from disk with its length;
 * resolves with the answer's counts, rejects unless it is 200.
 */
export function postImport(
  hostUrl: string,
  ca: string,
  token: string,
  userId: string,
  file: string,
): Promise<HostImportAnswer> {
  const target = new URL(`/host/v1/users/${encodeURIComponent(userId)}/meals/import`, hostUrl);
  return new Promise((resolve, reject) => {
    const request = https.request(
      target,
      {
        method: 'POST',
        ca,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/x-ndjson',
          'content-length': statSync(file).size,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          if (response.statusCode === 200) resolve(JSON.parse(text) as HostImportAnswer);
          else reject(new Error(`import of ${file}: ${response.statusCode} ${text.slice(0, 300)}`));
        });
      },
    );
    request.on('error', reject);
    createReadStream(file).on('error', reject).pipe(request);
  });
}
