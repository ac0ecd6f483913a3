import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { checkParamHeaders, HEADER_MISMATCH, scanParamHeaders, type ParamHeaderDeclaration } from '../../lib/mcp/param-headers.js';

const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    limits: { type: 'object', properties: { count: { type: 'integer', 'x-mcp-header': 'Count' } } },
    dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
    note: { type: 'string' },
  },
};

function declarationsOf(schema: object): readonly ParamHeaderDeclaration[] {
  const scan = scanParamHeaders(schema as Record<string, unknown>);
  assert.ok(scan.valid, scan.valid ? '' : scan.reason);
  return scan.declarations;
}

function reasonOf(schema: object): string {
  const scan = scanParamHeaders(schema as Record<string, unknown>);
  assert.equal(scan.valid, false, 'the declaration is refused');
  return scan.valid ? '' : scan.reason;
}

describe('scanParamHeaders', () => {
  it('finds declarations at any depth of properties, with the header key Node.js uses', () => {
    assert.deepEqual(declarationsOf(SCHEMA), [
      { path: ['region'], headerName: 'Region', headerKey: 'mcp-param-region', type: 'string' },
      { path: ['limits', 'count'], headerName: 'Count', headerKey: 'mcp-param-count', type: 'integer' },
      { path: ['dryRun'], headerName: 'Dry-Run', headerKey: 'mcp-param-dry-run', type: 'boolean' },
    ]);
    assert.deepEqual(declarationsOf({ type: 'object', properties: { a: { type: 'string' } } }), []);
  });

  it('refuses a declaration on a number, object, array or untyped property', () => {
    for (const type of ['number', 'object', 'array', undefined]) {
      const property = { ...(type ? { type } : {}), 'x-mcp-header': 'X' };
      assert.match(reasonOf({ type: 'object', properties: { a: property } }), /^a: x-mcp-header is only permitted on string, integer or boolean properties/);
    }
  });

  it('refuses a declaration that is not reached through properties alone', () => {
    const header = { type: 'string', 'x-mcp-header': 'X' };
    const schemas = [
      { type: 'object', 'x-mcp-header': 'Root' },
      { type: 'object', properties: { list: { type: 'array', items: header } } },
      { type: 'object', anyOf: [{ properties: { a: header } }] },
      { type: 'object', additionalProperties: header },
      { type: 'object', $defs: { a: header } },
      { type: 'object', if: { properties: { a: header } } },
    ];
    for (const schema of schemas) assert.match(reasonOf(schema), /x-mcp-header is only permitted on properties reached through "properties" alone/, JSON.stringify(schema));
  });

  it('refuses an empty name, a name that is no HTTP token and a name used twice in any case', () => {
    const one = (name: unknown) => ({ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': name } } });
    assert.match(reasonOf(one('')), /must be a non-empty string/);
    assert.match(reasonOf(one(7)), /must be a non-empty string/);
    assert.match(reasonOf(one('Two words')), /"Two words" is not a valid HTTP header name/);
    assert.match(reasonOf(one('a:b')), /is not a valid HTTP header name/);
    const twice = { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } } };
    assert.match(reasonOf(twice), /x-mcp-header "REGION" is declared twice \(also as "Region"/);
  });
});

describe('checkParamHeaders', () => {
  const declarations = declarationsOf(SCHEMA);

  it('accepts matching headers, plain or Base64, integers compared as numbers', () => {
    const args = { region: 'eu-west', limits: { count: 3 }, dryRun: false };
    assert.equal(checkParamHeaders(declarations, args, { 'mcp-param-region': 'eu-west', 'mcp-param-count': '3.0', 'mcp-param-dry-run': 'false' }), undefined);
    assert.equal(checkParamHeaders(declarations, { region: 'Zürich' }, { 'mcp-param-region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=` }), undefined);
  });

  it('expects no header for an argument that is absent or null, and ignores one sent anyway', () => {
    assert.equal(checkParamHeaders(declarations, {}, {}), undefined);
    assert.equal(checkParamHeaders(declarations, { region: null }, { 'mcp-param-region': 'anything' }), undefined);
    assert.equal(checkParamHeaders(declarations, undefined, {}), undefined);
  });

  it('names a missing header, a disagreeing one and a broken Base64 form, as HeaderMismatch 400', () => {
    const missing = checkParamHeaders(declarations, { region: 'eu' }, {});
    assert.deepEqual(missing, {
      httpStatus: 400,
      code: HEADER_MISMATCH,
      message: 'Bad Request: the request headers and body disagree: the body carries region="eu" but the Mcp-Param-Region header is absent',
      data: { mismatch: { header: 'Mcp-Param-Region', body: 'the body carries region="eu" but the Mcp-Param-Region header is absent' } },
    });
    assert.equal(HEADER_MISMATCH, -32020);
    const disagreeing = checkParamHeaders(declarations, { limits: { count: 3 } }, { 'mcp-param-count': '4' });
    assert.equal(disagreeing?.message, 'Bad Request: the request headers and body disagree: the Mcp-Param-Count header decodes to "4" but the body carries limits.count=3');
    const broken = checkParamHeaders(declarations, { region: 'eu' }, { 'mcp-param-region': '=?base64?ZX?=' });
    assert.equal(broken?.data.mismatch.body, 'the Mcp-Param-Region header carries an invalid Base64 sentinel value');
  });

  it('answers exactly as the official SDK server does for the same requests', async () => {
    // The SDK's own McpServer, on its own HTTP handler, is the reference.
    const handler = createMcpHandler(
      () => {
        const server = new McpServer({ name: 'reference', version: '1.0.0' }, { capabilities: { tools: {} } });
        server.registerTool('t', { inputSchema: fromJsonSchema(SCHEMA as never) }, async () => ({ content: [] }));
        return server;
      },
      { legacy: 'reject' },
    );
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const cases: Array<{ args: Record<string, unknown>; headers: Record<string, string> }> = [
      { args: { region: 'eu' }, headers: {} },
      { args: { region: 'eu' }, headers: { 'mcp-param-region': 'us' } },
      { args: { region: 'eu' }, headers: { 'mcp-param-region': 'eu' } },
      { args: { region: 'eu' }, headers: { 'mcp-param-region': 'EU' } },
      { args: { region: 'eu' }, headers: { 'mcp-param-region': '=?base64?ZXU=?=' } },
      { args: { region: 'eu' }, headers: { 'mcp-param-region': '=?base64?ZX?=' } },
      { args: { limits: { count: 3 } }, headers: { 'mcp-param-count': '3.0' } },
      { args: { limits: { count: 3 } }, headers: { 'mcp-param-count': '03' } },
      { args: { dryRun: true }, headers: { 'mcp-param-dry-run': 'True' } },
      { args: { dryRun: true, region: 'eu' }, headers: { 'mcp-param-dry-run': 'true' } },
      { args: { region: null, note: 'x' }, headers: { 'mcp-param-region': 'whatever' } },
    ];
    for (const { args, headers } of cases) {
      const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 't', arguments: args, _meta: meta } };
      const response = await handler.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 't', ...headers },
          body: JSON.stringify(body),
        }),
      );
      const answer = (await response.json()) as { error?: unknown };
      const ours = checkParamHeaders(declarations, args, headers as IncomingHttpHeaders);
      const label = JSON.stringify({ args, headers });
      if (response.status === 200) {
        assert.equal(ours, undefined, label);
      } else {
        assert.equal(response.status, ours?.httpStatus, label);
        assert.deepEqual(answer.error, { code: ours?.code, message: ours?.message, data: ours?.data }, label);
      }
    }
    await handler.close();
  });
});
