import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './project.js';

/** The text of a page of docs/. */
export function docsPage(page: string): string {
  return readFileSync(path.join(PROJECT_ROOT, 'docs', page), 'utf8');
}

/** The fenced block of `language` right after `<!-- marker -->` in a page's text. */
export function blockAfter(text: string, page: string, marker: string, language: string): string {
  const found = new RegExp(`<!-- ${marker} -->\\s*\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(text)?.[1];
  assert.ok(found !== undefined, `docs/${page} has no \`\`\`${language} block after <!-- ${marker} -->`);
  return found;
}
