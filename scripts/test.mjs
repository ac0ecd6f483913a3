// Runs one or more test layers (unit, nodes, runtime, editor) from dist/test with node's runner.
// Node 20 does not expand globs in `node --test`, and Node 22 would treat a folder as a module, so the
// files are listed here. Layers run one file at a time: runtime files each start a Node-RED process.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const layers = process.argv.slice(2);
if (layers.length === 0) {
  console.error('usage: node scripts/test.mjs <unit|nodes|runtime|editor>...');
  process.exit(2);
}
const files = layers.flatMap((layer) => {
  const dir = join(root, 'dist', 'test', layer);
  if (!existsSync(dir)) throw new Error(`no compiled tests in ${dir}: run npm run build first`);
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.test.js'))
    .sort()
    .map((file) => join(dir, file));
});
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
