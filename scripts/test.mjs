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
// A test that waits forever must fail the run with its name, not let CI run out of time: the longest
// suite (the editor in every language) takes about 75 s, so ten minutes is a hang. A file whose process never exits escapes the runner's
// timeout, so the whole run has a limit too (the Node-RED 5 leg runs three layers in one go).
const TEST_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 45 * 60_000;
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', `--test-timeout=${TEST_TIMEOUT_MS}`, ...files], {
  stdio: 'inherit',
  timeout: RUN_TIMEOUT_MS,
  killSignal: 'SIGKILL',
});
if (result.error) console.error(`test run of ${layers.join(', ')} stopped: ${result.error.message} (limit ${RUN_TIMEOUT_MS / 60_000} min)`);
process.exit(result.status ?? 1);
