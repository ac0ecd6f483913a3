// Runs a script on Node 22 with NODE_RED_PACKAGE pointing at Node-RED 5 (scripts/node-red-5-install.mjs
// installs it on first use), e.g. the test layers for `npm run test:node-red-5`.
import { spawnSync } from 'node:child_process';
import { node22Binary } from './node22-binary.mjs';
import { nodeRed5Dir } from './node-red-5-install.mjs';

const nodeRedDir = nodeRed5Dir();
const result = spawnSync(node22Binary(), process.argv.slice(2), { stdio: 'inherit', env: { ...process.env, NODE_RED_PACKAGE: nodeRedDir } });
process.exit(result.status ?? 1);
