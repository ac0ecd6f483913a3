// Node-RED 5, installed on first use into .node-red-5/ (git-ignored) with a pinned version. It needs
// Node 22, so it is not a dev dependency: there it made `npm ci` on the supported Node 20 warn
// EBADENGINE. npm installs it with the Node 22 binary first on the PATH, so its engine check passes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { node22Binary, repoRoot } from './node22-binary.mjs';

const NODE_RED_VERSION = '5.0.7';
const prefix = join(repoRoot, '.node-red-5');
const nodeRedDir = join(prefix, 'node_modules', 'node-red');

function installedVersion() {
  const manifest = join(nodeRedDir, 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
}

/** The folder of the pinned Node-RED 5 (what NODE_RED_PACKAGE=node-red-5 loads), installing it first when needed. */
export function nodeRed5Dir() {
  if (installedVersion() !== NODE_RED_VERSION) {
    const node22 = node22Binary();
    console.log(`installing node-red@${NODE_RED_VERSION} into .node-red-5/`);
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-red@${NODE_RED_VERSION}`],
      { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, PATH: `${dirname(node22)}${delimiter}${process.env.PATH ?? ''}` } },
    );
    if (installedVersion() !== NODE_RED_VERSION) throw new Error(`node-red@${NODE_RED_VERSION} did not install into ${prefix}`);
  }
  return nodeRedDir;
}
