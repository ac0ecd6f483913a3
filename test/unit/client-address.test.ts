import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { createClientAddressOf, parseTrustedProxies, peerAddress } from '../../lib/http/client-address.js';

/** Only the two things the resolver reads: the socket's peer and the headers. */
function request(remoteAddress: string | undefined, forwardedFor?: string | string[]): IncomingMessage {
  return { socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
}

describe('parseTrustedProxies', () => {
  it('accepts IPv4 and IPv6 addresses and ranges, separated by commas or spaces, without duplicates', () => {
    assert.deepEqual(parseTrustedProxies(' 10.0.0.0/8,192.168.1.5 ::1  fd00::/8, 10.0.0.0/8 '), { ok: true, entries: ['10.0.0.0/8', '192.168.1.5', '::1', 'fd00::/8'] });
    assert.deepEqual(parseTrustedProxies(''), { ok: true, entries: [] });
  });

  it('names the first entry that is not an address or range', () => {
    for (const bad of ['lb.internal', '10.0.0.0/33', '::/129', '10.0.0.1/8/8', '10.0.0.0/-1', '10.0.0.0/', '300.1.1.1']) {
      assert.deepEqual(parseTrustedProxies(`10.0.0.1, ${bad}`), { ok: false, invalid: bad });
    }
  });
});

describe('createClientAddressOf', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    const of = createClientAddressOf([]);
    assert.equal(of, peerAddress);
    assert.equal(of(request('203.0.113.5', '198.51.100.1')), '203.0.113.5');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    const of = createClientAddressOf(['10.0.0.0/8']);
    assert.equal(of(request('203.0.113.5', '198.51.100.1')), '203.0.113.5');
  });

  it('takes the address the trusted proxy appended, not what the client wrote to the left of it', () => {
    const of = createClientAddressOf(['10.0.0.0/8']);
    assert.equal(of(request('10.1.1.1', '198.51.100.1')), '198.51.100.1');
    assert.equal(of(request('10.1.1.1', 'forged, 1.2.3.4, 198.51.100.1')), '198.51.100.1');
  });

  it('walks past every trusted hop, across repeated headers', () => {
    const of = createClientAddressOf(['10.0.0.0/8', '192.168.0.1']);
    assert.equal(of(request('10.1.1.1', '198.51.100.1, 192.168.0.1, 10.2.2.2')), '198.51.100.1');
    assert.equal(of(request('10.1.1.1', ['198.51.100.1', '192.168.0.1'])), '198.51.100.1');
  });

  it('stops at the last trusted hop when an entry is malformed or the chain is all proxies', () => {
    const of = createClientAddressOf(['10.0.0.0/8']);
    assert.equal(of(request('10.1.1.1', '198.51.100.1, garbage, 10.2.2.2')), '10.2.2.2');
    assert.equal(of(request('10.1.1.1', '10.3.3.3, 10.2.2.2')), '10.3.3.3');
    assert.equal(of(request('10.1.1.1')), '10.1.1.1');
    assert.equal(of(request('10.1.1.1', '')), '10.1.1.1');
  });

  it('matches IPv6 ranges and IPv4 peers in their IPv4-mapped IPv6 spelling', () => {
    const of = createClientAddressOf(['127.0.0.1', 'fd00::/8']);
    assert.equal(of(request('::ffff:127.0.0.1', '2001:db8::1')), '2001:db8::1');
    assert.equal(of(request('fd12::1', '2001:db8::2')), '2001:db8::2');
    assert.equal(of(request(undefined, '2001:db8::3')), undefined);
  });

  it('refuses an entry that is not an address or range', () => {
    assert.throws(() => createClientAddressOf(['lb.internal']), TypeError);
  });
});
