// What `npm pack` ships, read from the real tarball that scripts/pack-fixture.mjs packed from a clean
// copy of the checkout (no dist/ until the prepack build makes it): everything Node-RED needs beside
// each node's compiled file, and no source map that points at sources the package does not carry.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { filePages, markdownLinkProblems, markdownPages } from '../support/doc-links.js';
import { repoRoot } from '../support/node-red-process.js';

interface Manifest {
  readonly files: string[];
  readonly 'node-red': { readonly nodes: Record<string, string> };
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
const languages = readdirSync(join(repoRoot, 'locales'));
const nodeTypes = Object.keys(manifest['node-red'].nodes);

describe('the packed tarball', () => {
  let unpacked = '';
  let entries = new Set<string>();

  before(() => {
    const fixture = join(repoRoot, '.runtime-fixture');
    const tarball = existsSync(fixture) ? readdirSync(fixture).find((name) => name.endsWith('.tgz')) : undefined;
    assert.ok(tarball, 'no tarball in .runtime-fixture: run `node scripts/pack-fixture.mjs` (npm run test:runtime does) first');
    unpacked = mkdtempSync(join(tmpdir(), 'nr-mcp-tarball-'));
    execFileSync('tar', ['-xzf', join(fixture, tarball), '-C', unpacked]);
    const listing = execFileSync('tar', ['-tzf', join(fixture, tarball)], { encoding: 'utf8' });
    entries = new Set(listing.split('\n').filter(Boolean).map((entry) => entry.replace(/^package\//, '')));
  });
  after(() => {
    if (unpacked) rmSync(unpacked, { recursive: true, force: true });
  });

  it('has every node\'s compiled file, editor template, catalog and help for each language, and icon', () => {
    const nodeFolders = readdirSync(join(repoRoot, 'nodes'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    assert.deepEqual(nodeTypes.sort(), nodeFolders.map((entry) => entry.name).sort(), 'package.json registers every node folder');
    // Code the node files share (nodes/*.ts) ships beside them.
    for (const shared of readdirSync(join(repoRoot, 'nodes')).filter((name) => name.endsWith('.ts'))) {
      assert.ok(entries.has(`dist/nodes/${shared.replace(/\.ts$/, '.js')}`), `${shared} is shipped compiled`);
    }
    const missing: string[] = [];
    const need = (file: string) => {
      if (!entries.has(file)) missing.push(file);
    };
    for (const type of nodeTypes) {
      const main = manifest['node-red'].nodes[type]!;
      const dir = posix.dirname(main);
      need(main);
      need(`${dir}/${type}.html`);
      for (const lang of languages) {
        for (const ext of ['json', 'html']) need(`${dir}/locales/${lang}/${type}.${ext}`);
      }
      const template = readFileSync(join(repoRoot, 'nodes', type, `${type}.html`), 'utf8');
      for (const [, icon] of template.matchAll(/\bicon:\s*"([^"]+)"/g)) need(`${dir}/icons/${icon}`);
    }
    // Every script a template loads from the package's resources/ folder.
    for (const type of Object.keys(manifest['node-red'].nodes)) {
      const template = readFileSync(join(repoRoot, 'nodes', type, `${type}.html`), 'utf8');
      for (const [, script] of template.matchAll(/src="resources\/@flowmcp\/node-red-mcp\/([^"]+)"/g)) need(`resources/${script}`);
    }
    need('resources/mcp-editor.js');
    need('resources/mcp-sidebar.js');
    for (const example of readdirSync(join(repoRoot, 'examples'))) need(`examples/${example}`);
    assert.deepEqual(missing, [], 'files missing from the tarball');
  });

  it('ships the README and every page of docs/, and every relative link between them resolves in the package', () => {
    // npm's and Node-RED's library pages show the README; its links to docs/ hold wherever the package is unpacked.
    const pages = markdownPages(repoRoot);
    assert.deepEqual(pages.filter((page) => !entries.has(page)), [], 'pages missing from the tarball');
    const packaged = filePages(join(unpacked, 'package'));
    assert.deepEqual(pages.flatMap((page) => markdownLinkProblems(packaged, page)), []);
  });

  it('ships no tests and no TypeScript sources', () => {
    const extra = [...entries].filter((entry) => entry.startsWith('dist/test/') || (entry.endsWith('.ts') && !entry.endsWith('.d.ts')));
    assert.deepEqual(extra, []);
  });

  it('ships no source map, and no compiled file refers to one, unless its sources are shipped too', () => {
    const broken: string[] = [];
    for (const entry of entries) {
      const file = join(unpacked, 'package', entry);
      if (entry.endsWith('.js')) {
        const reference = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(file, 'utf8'))?.[1];
        if (reference && !reference.startsWith('data:') && !entries.has(posix.join(posix.dirname(entry), reference))) {
          broken.push(`${entry} refers to ${reference}, which is not shipped`);
        }
      }
      if (entry.endsWith('.map')) {
        const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
        for (const [index, source] of map.sources.entries()) {
          const shipped = entries.has(posix.join(posix.dirname(entry), source)) || typeof map.sourcesContent?.[index] === 'string';
          if (!shipped) broken.push(`${entry} points at ${source}, which is not shipped`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });
});
