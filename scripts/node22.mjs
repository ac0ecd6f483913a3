// Runs a script on Node 22 (Node-RED 5 needs it) while the machine's own Node stays the default.
import { spawnSync } from 'node:child_process';
import { node22Binary } from './node22-binary.mjs';

const result = spawnSync(node22Binary(), process.argv.slice(2), { stdio: 'inherit' });
process.exit(result.status ?? 1);
