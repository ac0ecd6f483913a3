import type { ChildProcess } from 'node:child_process';

/** What a child process has printed so far, stdout and stderr interleaved as they arrived. */
export interface ChildOutput {
  text(): string;
  /** Called after every chunk, and once when the child exits, until removed: a wait checks its condition there. */
  readonly wakers: Set<() => void>;
}

/** Collects a spawned child's output (it must be spawned with stdout and stderr piped). */
export function collectOutput(child: ChildProcess): ChildOutput {
  let text = '';
  const wakers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of wakers) wake();
  };
  const collect = (chunk: Buffer) => {
    text += chunk.toString();
    wakeAll();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  child.once('exit', wakeAll);
  return { text: () => text, wakers };
}
