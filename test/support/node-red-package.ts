import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The Node-RED the tests load, from NODE_RED_PACKAGE: unset is the `node-red` dev dependency (4.1.x);
 * `node-red-5` (or a path) is the Node-RED 5 line that scripts/node-red-5.mjs installs into
 * .node-red-5/ for its own test leg, kept out of the dev dependencies because it needs Node 22.
 */
function resolveNodeRedDir(requested: string | undefined): string {
  if (requested === undefined || requested === '' || requested === 'node-red') return dirname(require.resolve('node-red/package.json'));
  const dir = requested === 'node-red-5' ? join(repoRoot, '.node-red-5', 'node_modules', 'node-red') : requested;
  if (!isAbsolute(dir) || !existsSync(join(dir, 'package.json'))) {
    throw new Error(`NODE_RED_PACKAGE=${requested}: no Node-RED at ${dir}; \`npm run test:node-red-5\` installs Node-RED 5 into .node-red-5/`);
  }
  return dir;
}

/** The folder of the Node-RED package under test (require.resolve of it finds its main module). */
export const nodeRedDir = resolveNodeRedDir(process.env.NODE_RED_PACKAGE);

/** `node-red@<version>`, for test titles. */
export const nodeRedLabel = `node-red@${(JSON.parse(readFileSync(join(nodeRedDir, 'package.json'), 'utf8')) as { version: string }).version}`;
