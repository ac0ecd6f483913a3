import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicAddress } from '../../lib/auth/clients/address-policy.js';

describe('isPublicAddress', () => {
  for (const ip of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '198.17.255.255',
    '198.20.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ]) {
    it(`treats ${ip} as public`, () => {
      assert.equal(isPublicAddress(ip), true);
    });
  }

  const nonPublic: readonly (readonly [string, string])[] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'bracketed loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback, long form'],
    ['0000:0000::0001', 'loopback, padded'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'scoped link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard-only'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['2001:2::1', 'benchmarking'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:a00:1', 'IPv4-mapped private, hex'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['[::ffff:7f00:1]', 'IPv4-mapped loopback, bracketed'],
    ['0:0:0:0:0:ffff:c0a8:101', 'IPv4-mapped 192.168.1.1, long form'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
    ['::ffff:255.255.255.255', 'IPv4-mapped broadcast'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['::a00:1', 'IPv4-compatible private'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated form)'],
    ['64:ff9b::a00:1', 'NAT64 of a private address'],
    ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
    ['64:ff9b:1::8.8.8.8', 'local-use NAT64'],
    ['2002:a00:1::1', '6to4 of a private address'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of link-local'],
    ['', 'empty'],
    ['localhost', 'a name, not an address'],
    ['example.com', 'a name, not an address'],
    ['1.2.3', 'not an address'],
    ['256.1.1.1', 'not an address'],
    [' 8.8.8.8', 'padded'],
  ];
  for (const [ip, why] of nonPublic) {
    it(`treats ${JSON.stringify(ip)} (${why}) as not public`, () => {
      assert.equal(isPublicAddress(ip), false);
    });
  }
});
