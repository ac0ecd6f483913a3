// Compiles the TypeScript and lays out what Node-RED expects beside each compiled node file:
// its editor template, its locales (catalog + help) and the shared icons. Node-RED resolves all
// three relative to the node's .js file and silently shows an empty node when any is missing.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
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
