// Every link of the README, of docs/ and of the editor's help resolves: a relative link to a file of the
// repository, its #anchor to a heading of that file as GitHub names it. The checker is first shown to
// catch what it must on small pages held in memory, then run on the repository's own.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { filePages, githubSlug, helpLinkProblems, markdownAnchors, markdownLinkProblems, markdownPages, type Pages } from '../support/doc-links.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The repository's files as the checker reads them. */
const repository = filePages(root);

/** Pages held in memory, for the checker's own cases. */
const sample = (files: Record<string, string>): Pages => ({ read: (path) => files[path] });

describe('the link checker, on pages held in memory', () => {
  it('names headings as GitHub does: code marks, punctuation and case dropped, spaces as hyphens', () => {
    const slugs: Array<[heading: string, slug: string]> = [
      ['Telemetry: `mcp-server-metrics`', 'telemetry-mcp-server-metrics'],
      ['See sign-in work: `npm run start:oauth`', 'see-sign-in-work-npm-run-startoauth'],
      ['One port: Docker, FlowFuse, Home Assistant', 'one-port-docker-flowfuse-home-assistant'],
      ['Tasks that ask (2026-07-28)', 'tasks-that-ask-2026-07-28'],
      ['Letting an agent read your flows: `get_flow`', 'letting-an-agent-read-your-flows-get_flow'],
      ['Where to read [on](x.md)', 'where-to-read-on'],
    ];
    for (const [heading, slug] of slugs) assert.equal(githubSlug(heading), slug, heading);
  });

  it('numbers a repeated heading, and ignores headings inside code blocks', () => {
    const anchors = markdownAnchors('# Limits\n\n## Limits\n\n```sh\n# not a heading\n```\n<a id="kept"></a>\n');
    assert.deepEqual([...anchors].sort(), ['kept', 'limits', 'limits-1']);
  });

  it('catches a broken anchor, a missing file and a link out of the site root, and passes good links', () => {
    const pages = sample({
      'README.md': [
        '# Title', '',
        '[ok](docs/a.md#a-heading) [ok too](#title) [folder](docs/a.md)',
        '[bad anchor](docs/a.md#no-such-heading)',
        '[missing](docs/gone.md)',
        '[rooted](/docs/a.md)',
        '[elsewhere](https://example.com/x#y) `[in code](nowhere.md)`',
        '```md', '[in a block](nowhere.md)', '```',
      ].join('\n'),
      'docs/a.md': '# A heading\n\n[back](../README.md#title) [self](#a-heading) [wrong](#title)\n',
    });
    assert.deepEqual(markdownLinkProblems(pages, 'README.md'), [
      'README.md:4: docs/a.md#no-such-heading: docs/a.md has no heading or id "no-such-heading"',
      'README.md:5: docs/gone.md: there is no file docs/gone.md',
      'README.md:6: a link from the root of the site breaks wherever the page is shown other than on GitHub; link relatively',
    ]);
    assert.deepEqual(markdownLinkProblems(pages, 'docs/a.md'), ['docs/a.md:3: #title: docs/a.md has no heading or id "title"']);
  });

  it('checks links into the package\'s repository, and refuses relative links in the editor\'s help', () => {
    const pages = sample({
      'docs/a.md': '# A heading\n',
      'help.html': [
        '<a href="https://github.com/o/r/blob/main/docs/a.md#a-heading">ok</a>',
        '<a href="https://github.com/o/r/blob/main/docs/a.md#gone">bad</a>',
        '<a href="https://json-schema.org/draft/2020-12">elsewhere</a>',
        '<a href="docs/a.md">relative</a>',
      ].join('\n'),
    });
    assert.deepEqual(helpLinkProblems(pages, 'help.html', 'https://github.com/o/r'), [
      'help.html:2: https://github.com/o/r/blob/main/docs/a.md#gone: docs/a.md has no heading or id "gone"',
      'help.html:4: docs/a.md is relative, and the editor would resolve it against its own address',
    ]);
  });
});

describe('the links of this repository', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository?: string | { url?: string } };
  const declared = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  const githubAddress = declared ? /github\.com[/:]([^/]+\/[^/.#]+)/.exec(declared)?.[1] : undefined;
  const repositoryUrl = githubAddress ? `https://github.com/${githubAddress}` : undefined;

  it('resolve in README.md and every page of docs/', () => {
    const pages = markdownPages(root);
    assert.ok(pages.length > 10, 'the docs pages are found');
    assert.deepEqual(pages.flatMap((page) => markdownLinkProblems(repository, page, repositoryUrl)), []);
  });

  it('resolve in the editor\'s help and node templates, in every language', () => {
    const helps = readdirSync(join(root, 'locales')).flatMap((language) =>
      readdirSync(join(root, 'locales', language)).filter((name) => name.endsWith('.html')).map((name) => `locales/${language}/${name}`));
    const templates = readdirSync(join(root, 'nodes'), { withFileTypes: true }).filter((entry) => entry.isDirectory())
      .map((entry) => `nodes/${entry.name}/${entry.name}.html`);
    assert.ok(helps.length >= 24, 'the help pages are found');
    assert.deepEqual([...helps, ...templates].flatMap((page) => helpLinkProblems(repository, page, repositoryUrl)), []);
  });
});
