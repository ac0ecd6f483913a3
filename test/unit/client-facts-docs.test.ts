// The client facts a user needs stand where they choose the settings they affect (measured with Claude
// Code 2.1.332, Codex 0.171 and the MCP Inspector CLI; /work/shared/CLIENTS.md): the long-job page, the
// asking page, the resources and prompts page, the tool dialog's help in every language, and the
// confirm-before-acting example, which must recommend a client that can answer its form.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const oneLine = (...path: string[]) => readFileSync(join(root, ...path), 'utf8').replace(/\s+/g, ' ');

describe('client facts where settings are chosen', () => {
  it('the long-job page: the 60 s limit, MCP_TOOL_TIMEOUT, who shows progress, no client shows log lines', () => {
    const page = oneLine('docs', 'tasks.md');
    assert.match(page, /ends it after 60 s unless the tool reports progress; `MCP_TOOL_TIMEOUT`/);
    assert.match(page, /sends no token, so gets no progress/, 'the Inspector sends no progress token');
    assert.match(page, /No client shows log lines to its user/);
    assert.match(page, /set \*Run as task\* to \*optional\*/);
  });

  it('the resources and prompts page: templates never listed by Claude Code, prompt arguments split on spaces', () => {
    const page = oneLine('docs', 'resources-prompts.md');
    assert.match(page, /\*\*never lists templates\*\*/);
    assert.match(page, /\*\*split on spaces\*\*/);
  });

  it('the asking page: Codex answers sampling with an error inside the answers', () => {
    assert.match(oneLine('docs', 'asking.md'), /\| sampling \| not declared \| answers with an error object inside the answers/);
  });

  it('the tool dialog help names MCP_TOOL_TIMEOUT in every language', () => {
    for (const lang of readdirSync(join(root, 'locales'))) {
      assert.match(oneLine('locales', lang, 'mcp-tool-registry.html'), /MCP_TOOL_TIMEOUT/, `${lang} help`);
    }
  });

  it('the confirm-before-acting example recommends interactive Claude Code, not the Inspector CLI that cannot answer forms', () => {
    const flow = JSON.parse(readFileSync(join(root, 'examples', 'confirm-before-acting.json'), 'utf8')) as { info?: string }[];
    const info = flow.map((node) => node.info ?? '').join(' ');
    assert.match(info, /Claude Code in its interactive mode/);
    assert.doesNotMatch(info, /such as [^.]*MCP Inspector/, 'the Inspector is not recommended for it');
    assert.match(info, /Inspector CLI cannot answer forms/);
  });
});
