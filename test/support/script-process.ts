import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { collectOutput } from './child-output.js';
import { repoRoot } from './node-red-process.js';

/** One of the repository's `npm start` scripts, run as `node scripts/<name>` with its output collected. */
export interface StartedScript {
  output(): string;
  /** Resolves with the first match of `pattern` in the output after `since` (an output length). */
  waitFor(pattern: RegExp, since?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code once the script has exited by itself. */
  exited(): Promise<number | null>;
  /** Ctrl+C: SIGINT, then the script's exit code. */
  interrupt(): Promise<number | null>;
}

export function runScript(script: string, env: Record<string, string>, args: string[] = []): StartedScript {
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot, 'scripts', script), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { text: output, wakers } = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output,
    waitFor(pattern, since = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output().slice(since));
          if (match) {
            wakers.delete(check);
            resolve(match);
          } else if (child.exitCode !== null) {
            wakers.delete(check);
            reject(new Error(`${script} exited (${child.exitCode}) before printing ${pattern}:\n${output().slice(-3000)}`));
          }
        };
        wakers.add(check);
        check();
      });
    },
    exited: () => exited,
    async interrupt() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
