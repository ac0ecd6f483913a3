import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ADMIN_TOKEN,
  PLANTED_SECRETS,
  SUBFLOW,
  TAB_MAIN,
  fixtureFlows,
  getFlowHarnessForSuite,
  type ConfigEntry,
} from '../support/flow-fixtures.js';
import { isSecretKey, redactUrlUserInfo } from '../../lib/admin/redaction.js';

type Entry = Record<string, unknown>;

/** Every call a client could make against the fixture: each mode, each id, each option. */
function everyCall(config: readonly ConfigEntry[]): Entry[] {
  const tabs = config.filter((entry) => entry.type === 'tab').map((entry) => entry.id);
  const subflows = config.filter((entry) => entry.type === 'subflow').map((entry) => entry.id);
  const containers = new Set([...tabs, ...subflows]);
  const isFlowNode = (entry: ConfigEntry) => 'x' in entry && 'y' in entry;
  const calls: Entry[] = [{}, { mode: 'tabs' }, { mode: 'subflows' }, { mode: 'configs' }, { mode: 'configs', offset: 40 }];
  for (const tab of tabs) {
    calls.push({ id: tab }, { mode: 'configs', id: tab });
    for (const subflow of subflows) calls.push({ mode: 'subflow', subflowId: subflow, id: tab });
  }
  for (const subflow of subflows) calls.push({ mode: 'subflow', subflowId: subflow }, { mode: 'configs', subflowId: subflow });
  for (const entry of config) {
    if (entry.type === 'tab' || entry.type === 'subflow') continue;
    const owner = typeof entry.z === 'string' ? entry.z : undefined;
    if (entry.type === 'group') {
      calls.push({ mode: 'group', id: owner, groupId: entry.id });
    } else if (owner && tabs.includes(owner) && isFlowNode(entry)) {
      calls.push(
        { mode: 'node', id: owner, nodeId: entry.id },
        { mode: 'node', id: owner, nodeId: entry.id, includeCode: true, includeConfig: true },
        { mode: 'chain', id: owner, nodeId: entry.id },
        { mode: 'node_configs', id: owner, nodeId: entry.id },
      );
    } else if (owner && subflows.includes(owner)) {
      calls.push({ mode: 'node_configs', subflowId: owner, nodeId: entry.id });
      if (!isFlowNode(entry)) calls.push({ mode: 'config', subflowId: owner, configId: entry.id });
    } else if (owner && tabs.includes(owner)) {
      calls.push({ mode: 'config', id: owner, configId: entry.id }, { mode: 'node_configs', id: owner, nodeId: entry.id });
    } else if (!owner || !containers.has(owner)) {
      calls.push({ mode: 'config', configId: entry.id });
    }
  }
  return calls;
}

function findPlanted(text: string): string[] {
  const found = Object.entries(PLANTED_SECRETS)
    .filter(([, secret]) => text.includes(secret))
    .map(([name]) => name);
  if (text.includes(ADMIN_TOKEN)) found.push('admin token');
  return found;
}

describe('get_flow redaction', () => {
  const flow = getFlowHarnessForSuite();

  it('is served every planted value by the admin API (so the scan below can catch a leak)', async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const raw = await Promise.all(
      ['/flow/global', `/flow/${TAB_MAIN}`, '/flow/tab-other'].map(async (path) => (await fetch(`${flow.api.baseUrl}${path}`, { headers })).text()),
    );
    const served = new Set(raw.flatMap(findPlanted));
    // Node-RED strips declared credentials from the flow API; everything else arrives.
    const expected = Object.keys(PLANTED_SECRETS).filter((name) => name !== 'credentialPassword');
    assert.deepEqual([...served].sort(), expected.sort());
  });

  it('lets no planted secret, env value or the admin token out of any mode', async () => {
    const calls = everyCall(fixtureFlows());
    assert.ok(calls.length > 100, `only ${calls.length} calls`);
    let answered = 0;
    for (const args of calls) {
      const { result, text } = await flow.call(args);
      assert.deepEqual(findPlanted(text), [], `${JSON.stringify(args)} leaked`);
      assert.deepEqual(findPlanted(JSON.stringify(result)), [], `${JSON.stringify(args)} leaked`);
      if (!result.isError) answered += 1;
    }
    assert.ok(answered > calls.length * 0.9, `only ${answered} of ${calls.length} calls answered`);
  });

  it('still hides a credentials container if the flow API ever returns one', async () => {
    flow.api.options = { leakCredentials: true };
    try {
      const { data, text } = await flow.call({ mode: 'config', configId: 'cfg-api' });
      assert.equal((data.properties as Entry).credentials, '[REDACTED]');
      assert.ok((data.redactedProperties as string[]).includes('properties.credentials'));
      assert.deepEqual(findPlanted(text), []);
    } finally {
      flow.api.options = {};
    }
  });

  it('redacts secret-named keys at any depth, URL user info and env values, and lists each path', async () => {
    const { data } = await flow.call({ mode: 'config', configId: 'cfg-api' });
    const properties = data.properties as Entry;
    assert.equal(properties.apiKey, '[REDACTED]');
    assert.equal(properties.clientSecret, '[REDACTED]');
    assert.deepEqual(properties.headers, { Authorization: '[REDACTED]', Accept: 'application/json', Cookie: '[REDACTED]' });
    assert.deepEqual(properties.settings, { deep: { level2: { password: '[REDACTED]', keep: 'visible-setting' } }, tags: ['a', 'b'] });
    assert.deepEqual(properties.tls, { private_key: '[REDACTED]', ca: 'public-ca-name' });
    assert.equal(properties.url, 'https://[REDACTED]@api.example.com/v1');
    assert.deepEqual(properties.env, [{ name: 'CFG_ENV', type: 'str', value: '[REDACTED]' }]);
    assert.equal(properties.retries, 3);
    assert.equal(properties.verbose, false);
    assert.deepEqual(
      [...(data.redactedProperties as string[])].sort(),
      [
        'config.name',
        'properties.apiKey',
        'properties.clientSecret',
        'properties.env[0].value',
        'properties.headers.Authorization',
        'properties.headers.Cookie',
        'properties.name',
        'properties.settings.deep.level2.password',
        'properties.tls.private_key',
        'properties.url',
      ].sort(),
    );
  });

  it('hides tab, group, subflow and instance env values but keeps their names', async () => {
    const summary = await flow.call({ id: TAB_MAIN });
    assert.deepEqual((summary.data.tab as Entry).env, [{ name: 'DB_HOST', type: 'str', value: '[REDACTED]' }]);
    assert.ok((summary.data.redactedProperties as string[]).includes('tab.env[0].value'));
    assert.ok((summary.data.redactedProperties as string[]).includes('groups[0].env[0].value'));
    const subflow = await flow.call({ mode: 'subflow', subflowId: SUBFLOW, id: 'tab-other' });
    assert.deepEqual(subflow.data.redactedProperties, ['subflow.env[0].value', 'usages[0].env[0].value']);
  });

  it('hides a node env property that is not a list', async () => {
    const { data } = await flow.call({ mode: 'node', id: 'tab-other', nodeId: 'o-exec' });
    assert.equal((data.node as Entry).env, '[REDACTED]');
    assert.deepEqual(data.redactedProperties, ['node.env']);
  });

  it('redacts secret keys inside supported settings (switch rules) and URL user info in code', async () => {
    const rules = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-switch-secret', includeConfig: true });
    // The switch tests msg.req.headers.authorization, so the value it is compared with is a secret too.
    assert.deepEqual((rules.data.config as Entry).rules, [{ t: 'eq', v: '[REDACTED]', vt: 'str', token: '[REDACTED]' }]);
    assert.deepEqual(rules.data.configRedactedProperties, ['config.rules[0].v', 'config.rules[0].token']);
    const code = await flow.call({ mode: 'node', id: TAB_MAIN, nodeId: 'n-func', includeCode: true });
    assert.match((code.data.code as Entry).func as string, /^\/\/ talks to https:\/\/\[REDACTED\]@db\.example\.com\/stats/);
    assert.deepEqual(code.data.redactedProperties, ['code.func']);
  });

  it('redacts user info in labels and names', async () => {
    const { data } = await flow.call({ mode: 'configs' });
    const api = (data.configs as Entry[]).find((config) => config.id === 'cfg-api')!;
    assert.equal(api.name, 'API https://[REDACTED]@api.example.com');
    assert.deepEqual(data.redactedProperties, ['configs[1].name']);
  });
});

describe('isSecretKey', () => {
  it('recognises secret names whatever their case and separators', () => {
    for (const key of [
      'password',
      'Password',
      'passwd',
      'dbPassword',
      'secret',
      'clientSecret',
      'client_secret',
      'token',
      'accessToken',
      'refresh_token',
      'apikey',
      'apiKey',
      'API_KEY',
      'x-api-key',
      'accessKey',
      'access_key',
      'privateKey',
      'private_key',
      'authorization',
      'Authorization',
      'proxyAuthorization',
      'cookie',
      'Set-Cookie',
      'passphrase',
      'credentials',
      'connectionString',
      'pwd',
      // Secret words anywhere in the key, plurals included.
      'tokens',
      'secrets',
      'passwords',
      'apiKeys',
      'api_keys',
      'secretValue',
      'passwordHash',
      'tokenSecret',
      'cookies',
      'authorizationHeader',
      'secretKeyId',
      'dbPass',
      'user_pwd',
    ]) {
      assert.equal(isSecretKey(key), true, key);
    }
  });

  it('leaves ordinary names alone', () => {
    for (const key of ['name', 'maxTokens', 'max_tokens', 'tokenType', 'url', 'topic', 'auth', 'key', 'keyword', 'passive', 'secretName', 'path', 'payload', '']) {
      assert.equal(isSecretKey(key), false, key);
    }
  });

  it('leaves keys that only describe a secret (its kind, name, size, lifetime, where it goes) alone', () => {
    for (const key of ['accessTokenTtl', 'refresh_token_ttl', 'tokenUrl', 'authorizationUrl', 'tokenEndpoint', 'passwordEnv', 'oidcSecretEnv', 'cookieName', 'maxPasswordLength', 'numTokens', 'passThrough', 'bypass']) {
      assert.equal(isSecretKey(key), false, key);
    }
  });
});

describe('redactUrlUserInfo', () => {
  it('replaces the user information of every URL in a text', () => {
    const shownFor: Record<string, string> = {
      'https://user:pw@host/x': 'https://[REDACTED]@host/x',
      'mongodb://u:p@a:1,b:2/db': 'mongodb://[REDACTED]@a:1,b:2/db',
      'a https://x@h and amqp://y:z@q': 'a https://[REDACTED]@h and amqp://[REDACTED]@q',
      'ftp://token@host': 'ftp://[REDACTED]@host',
    };
    for (const [text, shown] of Object.entries(shownFor)) assert.equal(redactUrlUserInfo(text), shown, text);
  });

  it('leaves URLs without user information and e-mail addresses alone', () => {
    for (const text of ['https://host/path@version', 'mail me: a@b.example', 'https://host?x=a@b', 'no url']) {
      assert.equal(redactUrlUserInfo(text), text);
    }
  });
});
