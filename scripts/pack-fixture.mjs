// Packs this package exactly as it would be published and installs the tarball into
// .runtime-fixture/, the node_modules every runtime test's Node-RED user directory links to.
// Runtime tests therefore load what users install, not the working tree.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixture = join(root, '.runtime-fixture');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

rmSync(fixture, { recursive: true, force: true });
mkdirSync(fixture, { recursive: true });
execFileSync(npm, ['pack', '--silent', '--pack-destination', fixture], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const tarball = readdirSync(fixture).find((name) => name.endsWith('.tgz'));
if (!tarball) throw new Error('npm pack produced no tarball');
writeFileSync(join(fixture, 'package.json'), JSON.stringify({ name: 'runtime-fixture', private: true }));
execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', join(fixture, tarball)], {
  cwd: fixture,
  stdio: ['ignore', 'ignore', 'inherit'],
});
console.log(`runtime fixture: ${tarball} installed into .runtime-fixture/node_modules`);
