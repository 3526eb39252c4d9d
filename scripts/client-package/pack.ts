/**
 * `npm run pack:client`: the SDK as a package of its own, `meal-export-client`, for projects
 * that call the service. Same sources as `meal-export/client` (tsconfig.client.json compiles
 * src/client/index.ts and what it imports), none of the server's dependencies: the SDK needs
 * only Node. Prints the tarball's absolute path, the one line a script may capture.
 *
 *   npm run pack:client        # then, elsewhere: npm install /that/path.tgz
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'dist-client');
const STAGING = path.join(OUT, 'package');

interface MainPackage {
  readonly version: string;
  readonly license: string;
  readonly private?: boolean;
  readonly engines: { readonly node: string };
}

/** The SDK's package.json: version, license, engines and privacy follow the service's own. */
function clientPackageJson(main: MainPackage): object {
  return {
    name: 'meal-export-client',
    version: main.version,
    description: 'Typed client for the meal-export API: paged sync, long polls, retries, webhook verification.',
    license: main.license,
    ...(main.private === true ? { private: true } : {}),
    type: 'module',
    engines: main.engines,
    exports: {
      '.': { types: './dist/client/index.d.ts', default: './dist/client/index.js' },
    },
    // dist/domain holds only the domain modules the client imports (tsconfig.client.json compiles
    // nothing else): the meal types, and the instant parser and page header name it runs.
    files: ['dist/client', 'dist/domain', 'README.md'],
    sideEffects: false,
  };
}

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

const main = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as MainPackage;
rmSync(OUT, { recursive: true, force: true });
run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.client.json'], ROOT);
writeFileSync(path.join(STAGING, 'package.json'), `${JSON.stringify(clientPackageJson(main), null, 2)}\n`);
copyFileSync(path.join(ROOT, 'scripts/client-package/README.md'), path.join(STAGING, 'README.md'));
mkdirSync(OUT, { recursive: true });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const packed = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', OUT], STAGING)) as { filename: string }[];
const filename = packed[0]?.filename;
if (filename === undefined) throw new Error('npm pack named no tarball');
console.log(path.join(OUT, filename));
