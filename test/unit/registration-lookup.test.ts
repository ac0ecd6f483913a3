import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientRejected } from '../../lib/auth/clients/known-client.js';
import { redirectUriAllowed } from '../../lib/auth/clients/redirect-uri.js';
import { createRegisteredClientLookup, UnknownRegisteredClient, type RegisteredClientLookup } from '../../lib/auth/registration/registered-clients.js';
import { parseRegistrationPolicy } from '../../lib/auth/registration/registration-policy.js';
import {
  isRegisteredClientId,
  newRegisteredClientId,
  registrationKey,
  saveRegistration,
  touchRegistration,
  type RegistrationRecord,
} from '../../lib/auth/registration/registration-record.js';
import { parseRegistrationRequest } from '../../lib/auth/registration/registration-request.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { StorageUnavailableError } from '../../lib/storage/store.js';

const NAMESPACE = 'ns-lookup-test';
const DAY_MS = 86_400_000;
const policy = parseRegistrationPolicy({ dcrEnabled: true, dcrSchemes: 'cursor', dcrUnusedDays: 2 });

function fakeClock() {
  let time = 1_700_000_000_000;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

/** A record exactly as the registration endpoint would store it for this request body. */
async function register(store: MemoryStore, body: Record<string, unknown>, namespace = NAMESPACE): Promise<RegistrationRecord> {
  const request = parseRegistrationRequest(body, policy, true);
  const record: RegistrationRecord = { v: 1, clientId: newRegisteredClientId(), ...request, issuedAt: 1_700_000_000 };
  assert.equal(await saveRegistration(store, namespace, record, policy.unusedSeconds), true);
  return record;
}

/** Runs `use` with the lookup over `store` (a fresh one unless given), and closes the store afterwards. */
async function withLookup(use: (store: MemoryStore, lookup: RegisteredClientLookup) => Promise<void>, store = new MemoryStore()): Promise<void> {
  try {
    await use(store, createRegisteredClientLookup(store, NAMESPACE, policy.unusedSeconds));
  } finally {
    await store.close();
  }
}

describe('registered client lookup', () => {
  it('returns the registration as client metadata, native when a redirect is loopback or custom', () =>
    withLookup(async (store, lookup) => {
      const vscode = await register(store, { client_name: 'Visual Studio Code', redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'] });
      const metadata = await lookup.find(vscode.clientId);
      assert.deepEqual(metadata, {
        clientId: vscode.clientId,
        redirectUris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
        clientName: 'Visual Studio Code',
        applicationType: 'native',
        grantTypes: ['authorization_code'],
        responseTypes: ['code'],
      });
      assert.ok(Object.isFrozen(metadata) && Object.isFrozen(metadata!.redirectUris));

      const cursor = await register(store, { redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'] });
      assert.equal((await lookup.find(cursor.clientId))?.applicationType, 'native');
      const claudeAi = await register(store, { redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] });
      assert.equal((await lookup.find(claudeAi.clientId))?.applicationType, 'web');
    }));

  it('lets a registered loopback redirect match on any port (RFC 8252), everything else exactly', () =>
    withLookup(async (store, lookup) => {
      const vscode = (await lookup.find((await register(store, { redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'] })).clientId))!;
      for (const uri of ['http://127.0.0.1:33418/', 'http://127.0.0.1:50123/', 'http://127.0.0.1/', 'https://vscode.dev/redirect']) {
        assert.equal(redirectUriAllowed(uri, vscode), true, uri);
      }
      for (const uri of ['http://localhost:33418/', 'http://127.0.0.1:33418/other', 'https://vscode.dev/redirect/x', 'https://vscode.dev:8443/redirect', 'http://127.0.0.1:33418/#x']) {
        assert.equal(redirectUriAllowed(uri, vscode), false, uri);
      }

      const claudeCode = (await lookup.find((await register(store, { redirect_uris: ['http://localhost:51234/callback'] })).clientId))!;
      assert.equal(redirectUriAllowed('http://localhost:60000/callback', claudeCode), true);
      assert.equal(redirectUriAllowed('http://127.0.0.1:60000/callback', claudeCode), false);

      const cursor = (await lookup.find((await register(store, { redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'] })).clientId))!;
      assert.equal(redirectUriAllowed('cursor://anysphere.cursor-mcp/oauth/callback', cursor), true);
      assert.equal(redirectUriAllowed('cursor://anysphere.cursor-mcp/oauth/other', cursor), false);
    }));

  it('finds nothing for unknown ids, other namespaces and unreadable records', () =>
    withLookup(async (store, lookup) => {
      assert.equal(await lookup.find(newRegisteredClientId()), undefined);
      const elsewhere = await register(store, { redirect_uris: ['https://a.example/cb'] }, 'ns-other');
      assert.equal(await lookup.find(elsewhere.clientId), undefined);
      const corrupt = newRegisteredClientId();
      await store.put(registrationKey(NAMESPACE, corrupt), '{"v":1,"clientId":"someone-else"}', 60);
      assert.equal(await lookup.find(corrupt), undefined);
      const notJson = newRegisteredClientId();
      await store.put(registrationKey(NAMESPACE, notJson), 'not json', 60);
      assert.equal(await lookup.find(notJson), undefined);
    }));

  it('does not even ask storage about ids this server cannot have issued', async () => {
    const store = new MemoryStore();
    await store.close();
    const lookup = createRegisteredClientLookup(store, NAMESPACE, policy.unusedSeconds);
    for (const id of ['https://claude.ai/oauth/claude-code-client-metadata', 'mcp-dyn-short', 'abc', '', `mcp-dyn-${'a'.repeat(31)}:`]) {
      assert.equal(isRegisteredClientId(id), false, id);
      assert.equal(await lookup.find(id), undefined, id);
    }
    await assert.rejects(lookup.find(newRegisteredClientId()), StorageUnavailableError);
  });

  it('restarts the unused period on every lookup, and forgets registrations nobody uses', async () => {
    const clock = fakeClock();
    await withLookup(async (store, lookup) => {
      const used = await register(store, { redirect_uris: ['http://127.0.0.1:33418/'] });
      const unused = await register(store, { redirect_uris: ['http://127.0.0.1:33419/'] });
      clock.advance(1.5 * DAY_MS);
      assert.ok(await lookup.find(used.clientId));
      clock.advance(1.5 * DAY_MS);
      assert.ok(await lookup.find(used.clientId), 'touched half-way, so still there after three days');
      assert.equal(await lookup.find(unused.clientId), undefined, 'never used, so gone after two days');
      clock.advance(2 * DAY_MS);
      assert.equal(await lookup.find(used.clientId), undefined);
    }, new MemoryStore({ now: clock.now }));
  });

  it('touchRegistration restarts the period and reports whether there was a registration', async () => {
    const clock = fakeClock();
    await withLookup(async (store) => {
      const record = await register(store, { redirect_uris: ['https://a.example/cb'] });
      clock.advance(1.5 * DAY_MS);
      assert.equal(await touchRegistration(store, NAMESPACE, record.clientId, policy.unusedSeconds), true);
      clock.advance(1.5 * DAY_MS);
      assert.notEqual(await store.get(registrationKey(NAMESPACE, record.clientId)), undefined);
      assert.equal(await touchRegistration(store, NAMESPACE, newRegisteredClientId(), policy.unusedSeconds), false);
      assert.equal(await touchRegistration(store, NAMESPACE, 'not-an-id', policy.unusedSeconds), false);
    }, new MemoryStore({ now: clock.now }));
  });

  it('offers an error for unknown registered ids that resolvers answer with invalid_client', () => {
    const error = new UnknownRegisteredClient();
    assert.ok(error instanceof ClientRejected);
    assert.match(error.description, /register again/);
  });
});
