import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { judge, loadExpectations } from '../conformance/expectations.js';
import { pinInitialize, startRevisionPinProxy } from '../conformance/revision-pin-proxy.js';

// The conformance runner (test/conformance) decides whether CI passes; these pin down its own rules.

describe('conformance runner: pinning a revision in initialize', () => {
  it('rewrites the protocolVersion of a single and of a batched initialize', () => {
    const single = pinInitialize(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } })), '2025-06-18');
    assert.equal(single.initialize, true);
    assert.equal(JSON.parse(single.body.toString()).params.protocolVersion, '2025-06-18');
    const batch = pinInitialize(Buffer.from(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }])), '2025-06-18');
    assert.equal(JSON.parse(batch.body.toString())[0].params.protocolVersion, '2025-06-18');
  });

  it('leaves other requests and bodies that are not JSON byte for byte as they were', () => {
    const call = Buffer.from('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}');
    assert.equal(pinInitialize(call, '2025-06-18').body, call);
    const garbage = Buffer.from('{not json');
    assert.deepEqual(pinInitialize(garbage, '2025-06-18'), { body: garbage, initialize: false });
  });
});

describe('conformance runner: the pin proxy in front of a server', () => {
  let target: Server;
  let seen: { headers: IncomingHttpHeaders; body: string }[];

  before(async () => {
    seen = [];
    target = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        const version = JSON.parse(body).params?.protocolVersion;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: version } })}\n\n`);
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => target.close(() => resolve())));

  it('sends the pinned initialize on, points Host at the server, keeps a foreign Host, and records what was negotiated', async () => {
    const targetUrl = new URL(`http://127.0.0.1:${(target.address() as AddressInfo).port}/mcp`);
    const proxy = await startRevisionPinProxy(targetUrl, '2025-06-18');
    try {
      const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
      await post(proxy.url, initialize, {});
      await post(proxy.url, initialize, { host: 'evil.example.com' });
      assert.equal(JSON.parse(seen[0]!.body).params.protocolVersion, '2025-06-18');
      assert.equal(seen[0]!.headers.host, targetUrl.host);
      assert.equal(seen[0]!.headers['content-length'], String(Buffer.byteLength(seen[0]!.body)));
      assert.equal(seen[1]!.headers.host, 'evil.example.com');
      assert.deepEqual([...proxy.negotiated], ['2025-06-18']);
    } finally {
      await proxy.close();
    }
  });
});

describe('conformance runner: judging a scenario and reading expected.json', () => {
  it('passes a scenario only when a check succeeded and none failed or warned', () => {
    assert.equal(judge([{ id: 'a', name: 'A', status: 'SUCCESS' }, { id: 'b', name: 'B', status: 'INFO' }]).outcome, 'pass');
    const warned = judge([{ id: 'a', name: 'A', status: 'SUCCESS' }, { id: 'session', name: 'S', status: 'WARNING', description: 'Server provides session ID' }]);
    assert.deepEqual(warned, { outcome: 'fail', problems: ['warning session: Server provides session ID'] });
    assert.equal(judge([{ id: 'a', name: 'A', status: 'FAILURE', errorMessage: 'Method not found' }]).outcome, 'fail');
    assert.deepEqual(judge([{ id: 'i', name: 'I', status: 'INFO' }]).problems, ['no check succeeded']);
  });

  it('does not pass a scenario whose own checks were all skipped: the suite-wide wire-schema check alone proves nothing', () => {
    // The skills scenarios against a server that declares no skills extension: every check of theirs
    // is SKIPPED and only the suite's own wire-schema-valid (added to every scenario) succeeds.
    const vacuous = judge([
      { id: 'sep-2640-skillmd-mimetype', name: 'M', status: 'SKIPPED', errorMessage: 'Server did not declare the io.modelcontextprotocol/skills extension; SKILL.md checks not applicable.' },
      { id: 'wire-schema-valid', name: 'WireSchemaValid', status: 'SUCCESS' },
    ]);
    assert.deepEqual(vacuous, {
      outcome: 'fail',
      problems: ['no check of the scenario succeeded (skipped sep-2640-skillmd-mimetype: Server did not declare the io.modelcontextprotocol/skills extension; SKILL.md checks not applicable.)'],
    });
    assert.equal(judge([{ id: 'a', name: 'A', status: 'SUCCESS' }, { id: 'wire-schema-valid', name: 'W', status: 'SUCCESS' }]).outcome, 'pass');
    assert.equal(judge([{ id: 'a', name: 'A', status: 'SUCCESS' }, { id: 'wire-schema-valid', name: 'W', status: 'FAILURE', errorMessage: 'bad' }]).outcome, 'fail');
  });

  it('refuses an expected failure without a reason, and an outcome other than pass or fail', () => {
    const dir = mkdtempSync(join(tmpdir(), 'expected-'));
    try {
      const file = join(dir, 'expected.json');
      writeFileSync(file, JSON.stringify({ suite: 's', scenarios: { ping: { '2025-06-18': 'fail' } } }));
      assert.throws(() => loadExpectations(file), /ping is expected to fail at 2025-06-18 but gives no reason/);
      writeFileSync(file, JSON.stringify({ suite: 's', scenarios: { ping: { '2025-06-18': 'skip', reason: 'r' } } }));
      assert.throws(() => loadExpectations(file), /must be "pass" or "fail"/);
      writeFileSync(file, JSON.stringify({ suite: 's', scenarios: { ping: { '2025-06-18': 'fail', reason: 'issue 10' } } }));
      assert.equal(loadExpectations(file).scenarios.ping!['2025-06-18'], 'fail');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function post(url: string, body: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
}
