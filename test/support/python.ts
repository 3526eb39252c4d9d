import { execFileSync } from 'node:child_process';

/** Why the tests that run a Python client skip here (python3 is not installed), or false when they can run. */
export function pythonMissing(): string | false {
  try {
    execFileSync('python3', ['--version']);
    return false;
  } catch {
    return 'python3 is not installed here';
  }
}
