import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolError } from '@modelcontextprotocol/server';
import { encodeCursor, PagedList } from '../../lib/mcp/paged-list.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';

type Page = { names: string[]; nextCursor?: string };

function list(names: string[], pageSize: number) {
  return new PagedList<string, Page>('prompts/list', names, (name) => name, (page, nextCursor) => ({ names: [...page], ...(nextCursor ? { nextCursor } : {}) }), pageSize);
}

function walk(paged: PagedList<string, Page>): string[][] {
  const pages: string[][] = [];
  let page = paged.page(undefined);
  pages.push(page.names);
  while (page.nextCursor) {
    page = paged.page(page.nextCursor);
    pages.push(page.names);
  }
  return pages;
}

function refused(run: () => unknown): ProtocolError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ProtocolError);
    return error;
  }
  assert.fail('expected -32602');
}

describe('PagedList', () => {
  it('serves a list that fits on one page as one page without a cursor', () => {
    const paged = list(['a', 'b', 'c'], 3);
    assert.deepEqual(paged.first, { names: ['a', 'b', 'c'] });
    assert.equal(paged.page(undefined), paged.first);
  });

  it('splits a long list into pages whose cursors lead through every item once', () => {
    const names = Array.from({ length: 7 }, (_, index) => `n${index}`);
    assert.deepEqual(walk(list(names, 3)), [['n0', 'n1', 'n2'], ['n3', 'n4', 'n5'], ['n6']]);
  });

  it('hands out the page prebuilt at deploy for a cursor it issued', () => {
    const paged = list(['a', 'b', 'c', 'd'], 2);
    const cursor = paged.first.nextCursor!;
    assert.equal(paged.page(cursor), paged.page(cursor));
    assert.ok(Object.isFrozen(paged.page(cursor)));
  });

  it('continues after the last item seen when the list changed between pages (a deploy)', () => {
    const before = list(['a', 'b', 'c', 'd'], 2);
    const cursor = before.first.nextCursor!;
    // 'b' was the last item seen; 'a2' sorts before it and 'b2' after it.
    const after = list(['a', 'a2', 'b2', 'c', 'd'], 2);
    assert.deepEqual(after.page(cursor), { names: ['b2', 'c'], nextCursor: encodeCursor('prompts/list', 'c') });
  });

  it('answers a cursor past the end with an empty last page', () => {
    assert.deepEqual(list(['a'], 5).page(encodeCursor('prompts/list', 'z')), { names: [] });
  });

  it('refuses a cursor that is not one of its own with -32602 saying how to start again', () => {
    const paged = list(['a', 'b', 'c'], 2);
    for (const cursor of ['nonsense!', '', 'djF8', encodeCursor('tools/list', 'a'), 'x'.repeat(3000), 42, null]) {
      const error = refused(() => paged.page(cursor));
      assert.equal(error.code, -32602, String(cursor));
      assert.match(error.message, /Invalid cursor for prompts\/list: .*call prompts\/list without a cursor/);
    }
  });
});

describe('ToolCatalog pages', () => {
  const tool = (name: string) => parseToolConfig({ toolName: name, endpoint: '/mcp', inputSchema: '{"type":"object"}', description: name });

  it('keeps tools/list unchanged (no nextCursor) while the tools fit on one page', () => {
    const catalog = new ToolCatalog([tool('b'), tool('a')], undefined, 2);
    assert.equal(JSON.stringify(catalog.page(undefined)), JSON.stringify({ tools: [catalog.find('a')!.listing, catalog.find('b')!.listing] }));
  });

  it('pages tools/list with cursors past the page size', () => {
    const catalog = new ToolCatalog(['d', 'c', 'b', 'a', 'e'].map(tool), undefined, 2);
    const names: string[][] = [];
    let page = catalog.page(undefined);
    names.push(page.tools.map((listed) => listed.name));
    while (page.nextCursor) {
      page = catalog.page(page.nextCursor);
      names.push(page.tools.map((listed) => listed.name));
    }
    assert.deepEqual(names, [['a', 'b'], ['c', 'd'], ['e']]);
  });
});
