import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownPages } from './doc-links.js';
import { repoRoot } from './node-red-process.js';

/**
 * The code block marked `<!-- doc-example: <name> ... -->` in README.md or a page of docs/, as a reader
 * copies it into a function node: tests run the docs' own text, so the docs cannot drift from what works.
 */
export function docExample(name: string): string {
  const marker = `<!-- doc-example: ${name} `;
  const holders = markdownPages(repoRoot).map((path) => ({ path, text: readFileSync(join(repoRoot, path), 'utf8') })).filter((page) => page.text.includes(marker));
  if (holders.length !== 1) {
    throw new Error(`expected one page with an example marked "doc-example: ${name}", found ${holders.map((page) => page.path).join(', ') || 'none'}`);
  }
  const { path, text } = holders[0]!;
  const block = /```js\n([\s\S]*?)\n```/.exec(text.slice(text.indexOf(marker)));
  if (!block) throw new Error(`${path}'s example "${name}" is not followed by a js code block`);
  return block[1]!;
}
