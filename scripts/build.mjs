// Compiles the TypeScript and lays out what Node-RED expects beside each compiled node file:
// its editor template, its locales (catalog + help) and the shared icons. Node-RED resolves all
// three relative to the node's .js file and silently shows an empty node when any is missing.
// `--package` (npm's prepack) compiles only what the package ships, dist/lib and dist/nodes, and
// leaves the compiled tests alone. No source maps: the TypeScript sources are not shipped, and a map
// pointing at files that are not there only misleads a debugger.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

const packageOnly = process.argv.includes('--package');
for (const dir of packageOnly ? [join(dist, 'lib'), join(dist, 'nodes')] : [dist]) rmSync(dir, { recursive: true, force: true });
const tsconfig = join(root, packageOnly ? 'tsconfig.package.json' : 'tsconfig.json');
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], {
  stdio: 'inherit',
});

const nodeTypes = readdirSync(join(root, 'nodes'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const languages = readdirSync(join(root, 'locales'));

for (const type of nodeTypes) {
  const target = join(dist, 'nodes', type);
  cpSync(join(root, 'nodes', type, `${type}.html`), join(target, `${type}.html`));
  for (const lang of languages) {
    for (const ext of ['json', 'html']) {
      const source = join(root, 'locales', lang, `${type}.${ext}`);
      if (existsSync(source)) cpSync(source, join(target, 'locales', lang, `${type}.${ext}`));
    }
  }
  cpSync(join(root, 'icons'), join(target, 'icons'), { recursive: true });
}
console.log(`built ${nodeTypes.length} node types: ${nodeTypes.join(', ')}`);
