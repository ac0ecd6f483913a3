import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './node-red-process.js';

/**
 * The code block of README.md marked `<!-- readme-example: <name> ... -->`, as a reader copies it into
 * a function node: tests run the README's own text, so the README cannot drift from what works.
 */
export function readmeExample(name: string): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const marker = readme.indexOf(`<!-- readme-example: ${name} `);
  if (marker < 0) throw new Error(`README.md has no example marked "readme-example: ${name}"`);
  const block = /```js\n([\s\S]*?)\n```/.exec(readme.slice(marker));
  if (!block) throw new Error(`README.md's example "${name}" is not followed by a js code block`);
  return block[1]!;
}
