// Runs the official MCP conformance suite against the fixture flow (test/conformance/) on Node 22.
// The suite needs Node >= 22, so it is not a dev dependency (npm would warn EBADENGINE on the Node 20
// leg): a pinned version is installed on first use into .conformance/, with npm itself running on the
// Node 22 binary. Change SUITE_VERSION to move to another release, then review expected.json.
// Arguments are passed to the runner (test/conformance/run-conformance.ts), e.g. `--scenario ping`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { node22Binary, repoRoot } from './node22-binary.mjs';
import { nodeRed5Dir } from './node-red-5-install.mjs';

const SUITE_PACKAGE = '@modelcontextprotocol/conformance';
const SUITE_VERSION = '0.2.0-alpha.12';

const prefix = join(repoRoot, '.conformance');
const suiteDir = join(prefix, 'node_modules', ...SUITE_PACKAGE.split('/'));
const runner = join(repoRoot, 'dist', 'test', 'conformance', 'run-conformance.js');

const node22 = node22Binary();
if (installedVersion() !== SUITE_VERSION) {
  console.log(`installing ${SUITE_PACKAGE}@${SUITE_VERSION} into .conformance/`);
  // npm's launcher starts `node` from PATH: putting Node 22 first runs npm on it.
  execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${SUITE_PACKAGE}@${SUITE_VERSION}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PATH: `${dirname(node22)}:${process.env.PATH ?? ''}` },
  });
}
if (!existsSync(runner)) {
  console.error('no compiled runner: run `npm run build` first');
  process.exit(2);
}
// NODE_RED_PACKAGE=node-red-5: the Node-RED 5 that the test:node-red-5 leg uses, installed when missing.
const nodeRedPackage = process.env.NODE_RED_PACKAGE === 'node-red-5' ? { NODE_RED_PACKAGE: nodeRed5Dir() } : {};
// The suite takes minutes; a run that hangs fails with a message instead of using up CI's time.
const RUN_TIMEOUT_MS = 20 * 60_000;
const result = spawnSync(node22, [runner, ...process.argv.slice(2)], {
  stdio: 'inherit',
  timeout: RUN_TIMEOUT_MS,
  killSignal: 'SIGKILL',
  env: { ...process.env, ...nodeRedPackage, MCP_CONFORMANCE_CLI: join(suiteDir, 'dist', 'index.js'), MCP_CONFORMANCE_VERSION: SUITE_VERSION },
});
if (result.error) console.error(`conformance run stopped: ${result.error.message} (limit ${RUN_TIMEOUT_MS / 60_000} min)`);
process.exit(result.status ?? 1);

function installedVersion() {
  const manifest = join(suiteDir, 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
}
