import { createRequire } from 'node:module';

/** This package's version (package.json), read once: the OpenAPI document's and the webhook calls' User-Agent. */
export const PACKAGE_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
