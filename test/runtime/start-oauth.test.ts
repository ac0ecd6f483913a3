// `npm run start:oauth` (scripts/start-oauth.mjs) as a newcomer uses it: started on free ports, it
// prints how to connect; the official MCP client then signs in through the demo provider's own login
// page with the printed user name and password, and the demo tool answers with the user's e-mail.
// All of it with the network cut off (test/support/no-outbound-network.ts in the script and in
// Node-RED): the demo is on loopback and must work as printed on a machine with no internet.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/client';
import { connect } from '../support/mcp-http.js';
import { nodeRedPackage, repoRoot } from '../support/node-red-process.js';
import { authorizeUrl, pkcePair, RegisteringOAuthProvider, signedInClient, TestOAuthProvider } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { readProblemPage } from '../support/problem-page.js';
import { runScript, type StartedScript } from '../support/script-process.js';
import { CookieJar } from '../support/test-idp.js';

const CLAUDE_CODE_CLIENT_ID = 'https://claude.ai/oauth/claude-code-client-metadata';
const CODEX_CLIENT_ID = 'https://chatgpt.com/oauth/codex/client.json';
const GUARD = pathToFileURL(join(repoRoot, 'dist', 'test', 'support', 'no-outbound-network.js')).href;

/** The environment that cuts a process and its children off from all but loopback, logging to `log`. */
function offline(log: string): Record<string, string> {
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${GUARD}`.trim(), OUTBOUND_LOG: log };
}

/** Every line of the guard's log but the `armed` ones: what was tried beyond loopback. */
function attempts(log: string): string[] {
  return readFileSync(log, 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith('armed '));
}

/** What the demo user does in the browser at the provider: fill in the login form and submit it. */
async function signInAtDemoProvider(providerUrl: string, username: string, password: string): Promise<string> {
  const redirectUri = new URL(providerUrl).searchParams.get('redirect_uri');
  if (!redirectUri) throw new Error('authorization URL has no redirect_uri');
  const jar = new CookieJar();
  let next = new URL(providerUrl);
  for (let hop = 0; hop < 12; hop += 1) {
    let response = await fetch(next, { redirect: 'manual', headers: jar.header(next) });
    jar.store(next, response.headers.getSetCookie());
    if (response.status === 200 && /\/interaction\/[\w-]+$/.test(next.pathname)) {
      const page = await response.text();
      assert.match(page, /DEMO identity provider/);
      assert.match(page, /<input name="username"[^>]*>[\s\S]*<input name="password" type="password"/);
      const post = (pass: string) =>
        fetch(next, {
          method: 'POST',
          redirect: 'manual',
          headers: { ...jar.header(next), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ username, password: pass }).toString(),
        });
      const wrong = await post(`${password}-wrong`);
      assert.equal(wrong.status, 401);
      assert.match(await wrong.text(), /Wrong user name or password/);
      response = await post(password);
      jar.store(next, response.headers.getSetCookie());
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`sign-in stopped at ${next.pathname} with HTTP ${response.status}: ${(await response.text()).slice(0, 500)}`);
    }
    await response.body?.cancel();
    const target = new URL(location, next);
    if (target.href.startsWith(redirectUri)) return target.href;
    next = target;
  }
  throw new Error('sign-in did not reach the bridge after 12 redirects');
}

describe('the network cut of these tests (test/support/no-outbound-network.ts)', () => {
  it('records and refuses a fetch of Claude Code\'s metadata document, and lets loopback through', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'no-outbound-'));
    try {
      const log = join(dir, 'outbound.log');
      writeFileSync(log, '');
      const port = await freePort();
      const script = `import { createServer } from 'node:http';
        const server = createServer((req, res) => res.end('loopback')).listen(${port}, '127.0.0.1');
        const local = await (await fetch('http://127.0.0.1:${port}/')).text();
        const remote = await fetch('${CLAUDE_CODE_CLIENT_ID}').then(() => 'fetched', (error) => error.cause?.code);
        const dns = await import('node:dns').then(({ promises }) => promises.lookup('claude.ai')).then(() => 'resolved', (error) => error.code);
        server.close();
        console.log(JSON.stringify({ local, remote, dns }));`;
      const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...offline(log) }, encoding: 'utf8' });
      assert.deepEqual(JSON.parse(output), { local: 'loopback', remote: 'ENETUNREACH', dns: 'ENOTFOUND' });
      assert.deepEqual(attempts(log), ['connect claude.ai:443', 'dns claude.ai']);
      assert.match(readFileSync(log, 'utf8'), /^armed \d+\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe(`npm run start:oauth (scripts/start-oauth.mjs) on ${nodeRedPackage}, with no network`, () => {
  let demo: StartedScript;
  let printed: RegExpExecArray;
  let mcpPort = 0;
  let logDir = '';
  let outboundLog = '';

  before(async () => {
    logDir = mkdtempSync(join(tmpdir(), 'start-oauth-offline-'));
    outboundLog = join(logDir, 'outbound.log');
    writeFileSync(outboundLog, '');
    mcpPort = await freePort();
    const env = { NODE_RED_PORT: String(await freePort()), MCP_PORT: String(mcpPort), DEMO_IDP_PORT: String(await freePort()), ...offline(outboundLog) };
    demo = runScript('start-oauth.mjs', env);
    printed = await demo.waitFor(/claude mcp add --transport http (\S+) (\S+)\n[\s\S]*?user name: (\S+)\n\s*password: +(\S+)\n[\s\S]*?answers with (\S+)\.\n\s*\(Codex: [^\n]*\n/);
  });
  after(async () => {
    await demo?.interrupt();
    rmSync(logDir, { recursive: true, force: true });
  });

  it('prints the OAuth endpoint next to the Local one, marked as a demo', () => {
    const output = demo.output();
    assert.match(output, /DEMO: OAuth sign-in on this computer \(development only, 127\.0\.0\.1 only\)/);
    assert.match(output, new RegExp(`Local endpoint: +http://127\\.0\\.0\\.1:${mcpPort}/mcp +\\(tools: add_numbers, greet\\)`));
    assert.equal(printed[2], `http://127.0.0.1:${mcpPort}/oauth-demo`);
  });

  it('prints the Codex command that works with the demo, and no warning about Node.js 20', async () => {
    const output = demo.output();
    // Codex presents its own metadata document unless told to register; the demo does not fetch it.
    assert.match(output, new RegExp(`codex mcp add node-red-demo --url http://127\\.0\\.0\\.1:${mcpPort}/oauth-demo --oauth-client-registration dcr\\n`));
    assert.doesNotMatch(output, /Unsupported runtime/);
  });

  it('signs Claude Code in with its pinned metadata document: PKCE, code, token, whoami, and nothing fetched', async () => {
    const [, , oauthUrl, username, password] = printed;
    // The official client presents Claude Code's client_id and a loopback redirect on a random port, as Claude Code does.
    const provider = new TestOAuthProvider(CLAUDE_CODE_CLIENT_ID, await freePort());
    const client = await signedInClient(oauthUrl!, provider, { signIn: (url) => signInAtDemoProvider(url, username!, password!) }, username!);
    try {
      assert.equal(provider.openedUrl?.searchParams.get('client_id'), CLAUDE_CODE_CLIENT_ID);
      assert.equal(provider.openedUrl?.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(provider.accessToken, 'a token was issued');
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'You are signed in as demo@example.com (groups: mcp-demo)');
    } finally {
      await client.close();
    }
    assert.deepEqual(attempts(outboundLog), [], 'nothing beyond loopback was tried');
  });

  it('shows a client it cannot verify a page in the browser\'s language, fetching nothing and redirecting nowhere', async () => {
    const [, , oauthUrl] = printed;
    const base = new URL(oauthUrl!).origin;
    // Codex without --oauth-client-registration dcr: its document is neither pinned nor on a client host.
    const response = await fetch(
      authorizeUrl(base, 'demo', { response_type: 'code', client_id: CODEX_CLIENT_ID, redirect_uri: 'http://127.0.0.1:49152/callback', code_challenge: pkcePair().challenge, code_challenge_method: 'S256', resource: oauthUrl! }),
      { redirect: 'manual', headers: { 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.5' } },
    );
    const page = await readProblemPage(response);
    const ja = JSON.parse(readFileSync(join(repoRoot, 'locales', 'ja', 'mcp-auth.json'), 'utf8'))['mcp-auth'].signInPage;
    assert.equal(page.status, 400);
    assert.equal(page.language, 'ja');
    assert.equal(page.heading, ja.problems.clientRefused.heading);
    assert.equal(page.error, 'invalid_client');
    assert.ok(page.text.includes(CODEX_CLIENT_ID));
    assert.deepEqual(attempts(outboundLog), []);
  });

  it('lets the official client sign in as the printed demo user and call whoami, which answers with their e-mail', async () => {
    const [, , oauthUrl, username, password, email] = printed;
    const provider = new RegisteringOAuthProvider(await freePort(), 'start:oauth test client');
    const client = await signedInClient(oauthUrl!, provider, { signIn: (url) => signInAtDemoProvider(url, username!, password!) }, username!);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ['set_line_speed', 'whoami']);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      assert.equal(email, 'demo@example.com');
      assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'You are signed in as demo@example.com (groups: mcp-demo)');
      // The demo's step-up tool: the first sign-in did not ask for line:write, so the client is sent to sign in again for it.
      provider.authorizationUrl = undefined;
      await assert.rejects(client.callTool({ name: 'set_line_speed', arguments: {} }), UnauthorizedError);
      assert.ok((provider.authorizationUrl as URL | undefined)?.searchParams.get('scope')?.split(' ').includes('line:write'));
    } finally {
      await client.close();
    }
    // The Local endpoint next to it still answers without a sign-in.
    const local = await connect(`http://127.0.0.1:${mcpPort}/mcp`, 'legacy');
    try {
      assert.deepEqual((await local.listTools()).tools.map((tool) => tool.name).sort(), ['add_numbers', 'greet']);
    } finally {
      await local.close();
    }
  });

  it('tried nothing beyond loopback, in the script and in Node-RED', () => {
    assert.ok(readFileSync(outboundLog, 'utf8').match(/^armed \d+$/gm)!.length >= 2, 'the network cut was in both processes');
    assert.deepEqual(attempts(outboundLog), []);
  });

  it('removes its user directory on Ctrl+C', async () => {
    const userDir = /User directory : (\S+)/.exec(demo.output())?.[1];
    assert.ok(userDir && existsSync(userDir), 'Node-RED names the demo user directory');
    assert.equal(await demo.interrupt(), 0);
    assert.equal(existsSync(userDir), false);
  });
});

describe('npm run start:oauth refuses to listen beyond loopback', () => {
  for (const args of [['--host', '0.0.0.0'], ['--host=192.168.1.10'], ['--host', '::']]) {
    it(`refuses ${args.join(' ')} before starting anything`, async () => {
      const script = runScript('start-oauth.mjs', { NODE_RED_PORT: String(await freePort()), MCP_PORT: String(await freePort()), DEMO_IDP_PORT: String(await freePort()) }, args);
      try {
        // A script that did start Node-RED fails here instead of hanging the test.
        const outcome = await Promise.race([script.exited(), script.waitFor(/Welcome to Node-RED/).then(() => 'started Node-RED')]);
        assert.equal(outcome, 2);
        assert.match(script.output(), /start:oauth is a demo and listens on 127\.0\.0\.1 only/);
        assert.doesNotMatch(script.output(), /password: /);
      } finally {
        await script.interrupt();
      }
    });
  }
});
