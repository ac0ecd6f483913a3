// lib/ without import circles (issue 23): a type or record kind that two layers share sits below
// both, so each layer can be read, tested and changed from the bottom up. Type-only imports count:
// they tie the files together for a reader just as much.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('import circles in lib/', () => {
  it('finds a circle where there is one (the reader of imports works)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
    ]);
    assert.deepEqual(circlesOf(graph), [['a.ts', 'b.ts', 'c.ts']]);
    assert.ok(importGraph().get('lib/execution/broker.ts')?.includes('lib/execution/cancellation.ts'), 'broker.ts imports cancellation.ts');
  });

  it('has none', () => {
    assert.deepEqual(circlesOf(importGraph()), [], 'move what the files of each circle share below them');
  });
});

/** Every TypeScript file of lib/ with the files of lib/ it imports or re-exports from (relative paths from the root). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(root, 'lib'))) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(/\b(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)) {
      const target = join(dirname(file), `${match[1]}.ts`);
      if (existsSync(target)) targets.add(relative(root, target));
    }
    graph.set(relative(root, file), [...targets]);
  }
  return graph;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Strongly connected components of two files or more (Tarjan), each sorted, in sorted order. */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return circles.sort((a, b) => a.join().localeCompare(b.join()));
}
