import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertTtlSeconds, renderStoreKey } from '../../lib/storage/store-arguments.js';
import { StorageUnavailableError, isStorageUnavailable } from '../../lib/storage/store.js';
import { McpPaletteError } from '../../lib/core/errors.js';

describe('renderStoreKey', () => {
  it('renders <prefix>:<namespace>:<kind>:<id>', () => {
    assert.equal(renderStoreKey('mcp', { namespace: 'ns1', kind: 'code', id: 'abc' }), 'mcp:ns1:code:abc');
  });

  it('lets the id, the last segment, contain ":"', () => {
    assert.equal(renderStoreKey('p', { namespace: 'n', kind: 'k', id: 'a:b' }), 'p:n:k:a:b');
  });

  it('refuses ":" or emptiness in namespace and kind, and an empty id', () => {
    const bad = [
      { namespace: 'a:b', kind: 'k', id: 'x' },
      { namespace: '', kind: 'k', id: 'x' },
      { namespace: 'n', kind: 'k:1', id: 'x' },
      { namespace: 'n', kind: '', id: 'x' },
      { namespace: 'n', kind: 'k', id: '' },
    ];
    for (const key of bad) assert.throws(() => renderStoreKey('mcp', key), (error: unknown) => error instanceof Error && !(error instanceof McpPaletteError));
  });
});

describe('assertTtlSeconds', () => {
  it('accepts whole seconds from 1 and refuses the rest', () => {
    assertTtlSeconds(1);
    assertTtlSeconds(86_400);
    for (const ttl of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) assert.throws(() => assertTtlSeconds(ttl));
  });
});

describe('StorageUnavailableError', () => {
  it('is a palette error with the stable code storage_unavailable and a reason', () => {
    const error = new StorageUnavailableError('reconnecting');
    assert.ok(error instanceof McpPaletteError);
    assert.ok(isStorageUnavailable(error));
    assert.equal(error.code, 'storage_unavailable');
    assert.equal(error.reason, 'reconnecting');
    assert.deepEqual(error.params, { reason: 'reconnecting' });
    assert.equal(isStorageUnavailable(new Error('other')), false);
  });
});
