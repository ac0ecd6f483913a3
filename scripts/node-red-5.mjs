// Runs a script with NODE_RED_PACKAGE pointing at Node-RED 5, installed on first use into .node-red-5/.
// Node-RED 5 needs Node 22, so it is not a dev dependency: there it made `npm ci` on the supported
// Node 20 warn EBADENGINE. Run this under Node 22 (scripts/node22.mjs): npm then installs with that
// Node first on the PATH, so the engine check passes there too.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_RED_VERSION = '5.0.7';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const prefix = join(root, '.node-red-5');
const nodeRedDir = join(prefix, 'node_modules', 'node-red');
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };

function installedVersion() {
  const manifest = join(nodeRedDir, 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
}

if (installedVersion() !== NODE_RED_VERSION) {
  console.log(`installing node-red@${NODE_RED_VERSION} into .node-red-5/ (Node ${process.version})`);
  execFileSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-red@${NODE_RED_VERSION}`],
    { stdio: ['ignore', 'ignore', 'inherit'], env },
  );
  if (installedVersion() !== NODE_RED_VERSION) throw new Error(`node-red@${NODE_RED_VERSION} did not install into ${prefix}`);
}
const result = spawnSync(process.execPath, process.argv.slice(2), { stdio: 'inherit', env: { ...env, NODE_RED_PACKAGE: nodeRedDir } });
process.exit(result.status ?? 1);
