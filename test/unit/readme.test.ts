// The README and the docs against what ships: the two first commands, every node under the name the
// editor's palette shows, every page of docs/ reachable from the README, the client facts a sign-in
// depends on (/work/shared/CLIENTS.md, observed), and the conformance figures of expected.json.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { clientName } from '../../lib/editor/client-commands.js';
import { markdownPages } from '../support/doc-links.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (...path: string[]) => readFileSync(join(root, ...path), 'utf8');
/** A page on one line, so a sentence matches whatever its line breaks. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ');
const readme = read('README.md');

describe('README', () => {
  it('starts with the two commands that work on a fresh machine', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = firstBlock.split('\n').filter(Boolean).map((line) => line.replace(/\s+#.*$/, ''));
    assert.deepEqual(commands, ['npm ci && npm start', 'npm test']);
  });

  it('names every node as the editor does, in every language folder', () => {
    for (const lang of readdirSync(join(root, 'locales'))) {
      for (const file of readdirSync(join(root, 'locales', lang)).filter((name) => name.endsWith('.json'))) {
        const type = file.slice(0, -'.json'.length);
        const label = (JSON.parse(read('locales', lang, file)) as Record<string, { paletteLabel: string }>)[type]!.paletteLabel;
        assert.ok(readme.includes(`| \`${type}\` | *${label}* |`), `the nodes table gives ${type} its editor name "${label}" (${lang})`);
      }
    }
  });

  it('stays a read of minutes and leads to every page of docs/', () => {
    const lines = readme.split('\n').length;
    assert.ok(lines <= 350, `README.md has ${lines} lines; the reference belongs in docs/`);
    assert.match(readme, /\]\(docs\/README\.md\)/, 'the README links the docs index');
    const index = read('docs', 'README.md');
    for (const page of readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md') && name !== 'README.md')) {
      assert.ok(index.includes(`](${page})`), `docs/README.md links ${page}`);
      assert.ok(readme.includes(`](docs/${page})`), `the README's "Where to read on" links docs/${page}`);
    }
  });
});

describe('the five-minute guide', () => {
  it('registers the example under the name the sidebar and npm start give it', async () => {
    const example = JSON.parse(read('examples', 'two-tools.json')) as Record<string, unknown>[];
    const server = example.find((node) => node.type === 'mcp-flow-server')!;
    const name = clientName(String(server['serverName']));
    assert.equal(name, 'node-red-example');
    const guide = oneLine(readme);
    const claude = [...guide.matchAll(/claude mcp add --transport http (\S+) http:\/\/127\.0\.0\.1:1881\/mcp/g)].map((match) => match[1]);
    const codex = [...guide.matchAll(/codex mcp add (\S+) --url http:\/\/127\.0\.0\.1:1881\/mcp/g)].map((match) => match[1]);
    assert.deepEqual([...claude, ...codex], [name, name]);
    // What `npm start` prints after "Try it:" is built from the same list of endpoints.
    const { endpointsOf } = (await import(pathToFileURL(join(root, 'scripts', 'start-endpoints.mjs')).href)) as { endpointsOf(flows: unknown[]): { name: string }[] };
    assert.deepEqual(endpointsOf(example).map((endpoint) => endpoint.name), [name]);
    assert.match(read('scripts', 'start.mjs'), /claude mcp add --transport http \$\{endpoint\.name\} \$\{endpoint\.url\}/);
  });
});

describe('the sign-in demo', () => {
  it('is added under the name the sidebar gives its endpoint', async () => {
    const demo = (await import(pathToFileURL(join(root, 'scripts', 'demo-flow.mjs')).href)) as { demoFlow(options: Record<string, string>): Record<string, unknown>[] };
    const server = demo.demoFlow({ runtimeId: 'r', issuer: 'http://127.0.0.1:1/', clientId: 'c', group: 'g' }).find((node) => node.type === 'mcp-flow-server')!;
    const name = clientName(String(server['serverName']));
    const page = oneLine(read('docs', 'sign-in.md'));
    const claude = [...page.matchAll(/claude mcp add --transport http (\S+) http:\/\/127\.0\.0\.1:1881\/oauth-demo/g)].map((match) => match[1]);
    const codex = [...page.matchAll(/codex mcp add (\S+) --url http:\/\/127\.0\.0\.1:1881\/oauth-demo/g)].map((match) => match[1]);
    assert.deepEqual([...claude, ...codex], [name, name]);
    // start:oauth prints the commands with the same constant the flow's serverName is.
    assert.match(read('scripts', 'start-oauth.mjs'), /claude mcp add --transport http \$\{DEMO_SERVER_NAME\} /);
    assert.match(read('scripts', 'demo-flow.mjs'), /serverName: DEMO_SERVER_NAME,/);
  });
});

describe('README against docs/performance.md', () => {
  it('quotes the latest bench run as the performance page gives it', () => {
    const claim = /answered ([\d.]+)× the calls\/s of the same tool wired by hand from core nodes, at ([\d.]+)× its server CPU per call/.exec(oneLine(readme));
    assert.ok(claim, 'the README gives the figures against core nodes wired by hand');
    const performance = oneLine(read('docs', 'performance.md'));
    assert.ok(performance.includes(`Local 1 tool **${claim[1]}× H**`), `docs/performance.md gives ${claim[1]}× H`);
    assert.ok(performance.includes(`**${claim[2]}× its server CPU per call**`), `docs/performance.md gives ${claim[2]}× the server CPU`);
  });
});

describe('docs/message-contract.md', () => {
  it('lists every message topic the endpoint sends or takes', () => {
    const nodeTypes = new Set(Object.keys((JSON.parse(read('package.json')) as { 'node-red': { nodes: Record<string, string> } })['node-red'].nodes));
    const sources = ['lib', 'nodes'].flatMap((dir) => readdirSync(join(root, dir), { recursive: true }).map(String)
      .filter((file) => file.endsWith('.ts')).map((file) => read(dir, file)));
    const topics = new Set(sources.flatMap((source) => [...source.matchAll(/'(mcp-(?:tool|resource|prompt|completion)(?:-[a-z]+)*)'/g)].map((match) => match[1]!))
      .filter((name) => !nodeTypes.has(name)));
    assert.ok(topics.has('mcp-tool-execute') && topics.has('mcp-completion'), 'the topics are found');
    const table = oneLine(read('docs', 'message-contract.md')).split('## Every topic')[1] ?? '';
    assert.deepEqual([...topics].filter((topic) => !table.includes(`\`${topic}\``)).sort(), []);
  });
});

describe('docs/sign-in.md', () => {
  const signIn = oneLine(read('docs', 'sign-in.md'));

  it('says how Codex signs in: its metadata document, chatgpt.com or pinning or dcr, and that add starts the sign-in', () => {
    assert.match(signIn, /https:\/\/chatgpt\.com\/oauth\/codex\/client\.json/);
    assert.match(signIn, /fails with 400 unless `chatgpt\.com` is one of the client hosts or that document is pinned/);
    assert.match(signIn, /--oauth-client-registration dcr/);
    assert.match(signIn, /`codex mcp add team --url https:\/\/mcp\.example\.com\/tools` already starts the sign-in/);
    assert.doesNotMatch(signIn, /by default, Codex register/, 'Codex registers only when told to');
  });

  it('gives Claude Code\'s metadata document for pinning, and says only Trusted clients skip consent', () => {
    assert.match(signIn, /Claude Code's document is `https:\/\/claude\.ai\/oauth\/claude-code-client-metadata`/);
    assert.match(signIn, /Only the clients listed in the consent section's \*Trusted\* field skip the prompt/);
    assert.doesNotMatch(signIn, /trusted\* \(pinned or on an allow-listed host\) skip/);
  });
});

describe('docs/protocol-and-limits.md, Conformance', () => {
  const page = oneLine(read('docs', 'protocol-and-limits.md'));
  const conformance = page.slice(page.indexOf('## Conformance'));
  const expected = JSON.parse(read('test', 'conformance', 'expected.json')) as { scenarios: Record<string, Record<string, string>> };

  it('does not count the skills scenarios as passing: the palette declares no skills extension, so the suite skips them', () => {
    assert.ok(page.includes('## Conformance'), 'the page has its Conformance section');
    assert.doesNotMatch(conformance, /the skills scenarios, and the tasks scenarios/);
    assert.match(conformance, /\| `sep-2640-skills-directory`, `sep-2640-skills-enumeration`, `sep-2640-skills-manifest` \| not applicable: /);
    for (const scenario of ['sep-2640-skills-directory', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest']) {
      assert.equal(expected.scenarios[scenario]?.['extension'], 'fail', scenario);
      assert.match(expected.scenarios[scenario]?.['reason'] ?? '', /declares no io\.modelcontextprotocol\/skills extension/, scenario);
    }
  });

  it('gives the count of passing runs that expected.json holds (and so does the README), and names every scenario expected to fail', () => {
    const outcomes = Object.values(expected.scenarios).flatMap((revisions) =>
      Object.entries(revisions).filter(([key]) => key !== 'reason').map(([, outcome]) => outcome));
    const passing = outcomes.filter((outcome) => outcome === 'pass').length;
    assert.match(conformance, new RegExp(`Today ${passing} of ${outcomes.length} runs pass\\.`));
    assert.match(oneLine(readme), new RegExp(`${passing} of ${outcomes.length} runs of the official conformance suite pass`), 'the README says so too');
    const table = conformance.slice(conformance.indexOf('| scenarios | why |'));
    for (const [scenario, revisions] of Object.entries(expected.scenarios)) {
      if (Object.values(revisions).includes('fail')) assert.ok(table.includes(`\`${scenario}\``), `the table gives the reason ${scenario} fails`);
    }
  });
});

describe('docs/', () => {
  it('names only source files of this repository that exist (a file moved by a refactoring is named where it went)', () => {
    const named = markdownPages(root).flatMap((page) => [...read(page).matchAll(/`((?:lib|nodes|test|scripts|bench|resources|examples)\/[^`\s<>]+\.(?:ts|mjs|js|html))`/g)]
      .map((match) => ({ page, path: match[1]! })));
    assert.ok(named.some(({ path }) => path === 'lib/core/defaults.ts'), 'the paths are found');
    assert.deepEqual(named.filter(({ path }) => !existsSync(join(root, path))), []);
  });
});
