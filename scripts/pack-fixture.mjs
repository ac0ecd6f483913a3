// Packs this package exactly as a fresh clone would publish it and installs the tarball into
// .runtime-fixture/, the node_modules every runtime test's Node-RED user directory links to.
// Runtime tests therefore load what users install, not the working tree.
//
// The pack runs in a copy of the checkout's files (tracked and not ignored, so no dist/), with only
// node_modules linked in: the tarball has code only because `npm pack` builds it (prepack), which is
// what a publish from a clean clone relies on. test/runtime/package-contents.test.ts checks the result.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixture = join(root, '.runtime-fixture');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The checkout as a clone would have it: tracked files plus new files git does not ignore. */
function checkoutFiles() {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return [...new Set(listed.split('\0').filter(Boolean))].filter((file) => existsSync(join(root, file)));
}

rmSync(fixture, { recursive: true, force: true });
mkdirSync(fixture, { recursive: true });
const clone = mkdtempSync(join(tmpdir(), 'node-red-mcp-pack-'));
try {
  for (const file of checkoutFiles()) cpSync(join(root, file), join(clone, file), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
  execFileSync(npm, ['pack', '--silent', '--pack-destination', fixture], { cwd: clone, stdio: ['ignore', 'inherit', 'inherit'] });
} finally {
  rmSync(clone, { recursive: true, force: true });
}
const tarball = readdirSync(fixture).find((name) => name.endsWith('.tgz'));
if (!tarball) throw new Error('npm pack produced no tarball');
writeFileSync(join(fixture, 'package.json'), JSON.stringify({ name: 'runtime-fixture', private: true }));
execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', join(fixture, tarball)], {
  cwd: fixture,
  stdio: ['ignore', 'ignore', 'inherit'],
});
console.log(`runtime fixture: ${tarball} (packed from a clean copy of the checkout) installed into .runtime-fixture/node_modules`);
