// The README against what ships: the two first commands, every node under the name the editor's
// palette shows, and the client facts a sign-in depends on (/work/shared/CLIENTS.md, observed).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const oneLine = readme.replace(/\s+/g, ' ');

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
        const label = (JSON.parse(readFileSync(join(root, 'locales', lang, file), 'utf8')) as Record<string, { paletteLabel: string }>)[type]!.paletteLabel;
        assert.ok(readme.includes(`| \`${type}\` | *${label}* |`), `the nodes table gives ${type} its editor name "${label}" (${lang})`);
      }
    }
  });

  it('says how Codex signs in: its metadata document, chatgpt.com or pinning or dcr, and that add starts the sign-in', () => {
    assert.match(oneLine, /https:\/\/chatgpt\.com\/oauth\/codex\/client\.json/);
    assert.match(oneLine, /fails with 400 unless `chatgpt\.com` is one of the client hosts or that document is pinned/);
    assert.match(oneLine, /--oauth-client-registration dcr/);
    assert.match(oneLine, /`codex mcp add team --url https:\/\/mcp\.example\.com\/tools` already starts the sign-in/);
    assert.doesNotMatch(oneLine, /by default, Codex register/, 'Codex registers only when told to');
  });

  it('does not count the skills scenarios as passing: the palette declares no skills extension, so the suite skips them', () => {
    const conformance = oneLine.slice(oneLine.indexOf('## Conformance'), oneLine.indexOf('## Telemetry'));
    assert.doesNotMatch(conformance, /the skills scenarios, and the tasks scenarios/);
    assert.match(conformance, /\| `sep-2640-skills-directory`, `sep-2640-skills-enumeration`, `sep-2640-skills-manifest` \| not applicable: /);
    const expected = JSON.parse(readFileSync(join(root, 'test', 'conformance', 'expected.json'), 'utf8')) as { scenarios: Record<string, Record<string, string>> };
    for (const scenario of ['sep-2640-skills-directory', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest']) {
      assert.equal(expected.scenarios[scenario]?.['extension'], 'fail', scenario);
      assert.match(expected.scenarios[scenario]?.['reason'] ?? '', /declares no io\.modelcontextprotocol\/skills extension/, scenario);
    }
  });

  it('gives Claude Code\'s metadata document for pinning, and says only Trusted clients skip consent', () => {
    assert.match(oneLine, /Claude Code's document is `https:\/\/claude\.ai\/oauth\/claude-code-client-metadata`/);
    assert.match(oneLine, /Only the clients listed in the consent section's \*Trusted\* field skip the prompt/);
    assert.doesNotMatch(oneLine, /trusted\* \(pinned or on an allow-listed host\) skip/);
  });
});
