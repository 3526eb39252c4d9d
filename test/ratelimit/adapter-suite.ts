import { test } from 'node:test';

/** What an adapter suite's `open` gives: one instance per service instance over one fresh state. */
export interface OpenedInstances<T> {
  readonly instances: readonly [T, ...T[]];
  close(): Promise<void>;
}

/** Runs `work` on the first instance (and all of them), then closes them whatever happened. */
export async function withOpened<T>(
  opening: Promise<OpenedInstances<T>>,
  work: (first: T, instances: readonly T[]) => Promise<void>,
): Promise<void> {
  const opened = await opening;
  try {
    await work(opened.instances[0], opened.instances);
  } finally {
    await opened.close();
  }
}

/** A case of an adapter suite, skipped with the reason the adapter gives for its title. */
export function adapterTest(
  skip: Readonly<Record<string, string>> | undefined,
  title: string,
  fn: () => Promise<void>,
): void {
  test(title, { skip: skip?.[title] ?? false }, fn);
}
