import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PrimaryWatch } from '../../lib/storage/primary-watch.js';
import { parseSentinelAddresses } from '../../lib/storage/redis-connection.js';
import { redisErrorToken } from '../../lib/storage/redis-errors.js';
import { ReplicaQuorum, replicasInSync } from '../../lib/storage/replica-quorum.js';
import { mustMove, parseSwitchMaster } from '../../lib/storage/sentinel-switch-watch.js';
import { recordingLogger } from '../support/recording-logger.js';

describe('ReplicaQuorum', () => {
  it('asks for one replica before the first sample of a primary', () => {
    assert.equal(new ReplicaQuorum(5_000, () => 0).required, 1);
  });

  it('asks for the most replicas seen in sync within the window, so a promoted replica cannot be replaced by another acknowledging', () => {
    let now = 0;
    const quorum = new ReplicaQuorum(5_000, () => now);
    quorum.note(2);
    now = 1_000;
    quorum.note(1);
    assert.equal(quorum.required, 2);
    now = 4_999;
    assert.equal(quorum.required, 2);
    now = 5_001;
    quorum.note(1);
    assert.equal(quorum.required, 1, 'a replica gone for the whole window is no longer waited for');
  });

  it('keeps the last sample when no newer one came (a failed INFO does not drop the requirement)', () => {
    let now = 0;
    const quorum = new ReplicaQuorum(5_000, () => now);
    quorum.note(2);
    now = 60_000;
    assert.equal(quorum.required, 2);
  });

  it('forgets the old primary on reset', () => {
    const quorum = new ReplicaQuorum(5_000, () => 0);
    quorum.note(3);
    quorum.reset();
    assert.equal(quorum.required, 1);
    quorum.note(0);
    assert.equal(quorum.required, 0);
  });
});

describe('replicasInSync', () => {
  it('counts the replicas INFO replication reports online, not those still syncing', () => {
    const info = [
      '# Replication',
      'role:master',
      'connected_slaves:3',
      'slave0:ip=10.0.0.12,port=6379,state=online,offset=1234,lag=0',
      'slave1:ip=10.0.0.13,port=6379,state=wait_bgsave,offset=0,lag=0',
      'slave2:ip=10.0.0.14,port=6379,state=online,offset=1200,lag=1',
      'master_repl_offset:1234',
    ].join('\r\n');
    assert.equal(replicasInSync(info), 2);
    assert.equal(replicasInSync('# Replication\r\nrole:master\r\nconnected_slaves:0\r\n'), 0);
  });
});

describe('PrimaryWatch', () => {
  it('logs the first primary once, each change of primary once as a failover, and counts the switches', () => {
    const logger = recordingLogger();
    let now = 1_000;
    const watch = new PrimaryWatch(logger, 'primary', () => now);
    watch.connected('10.0.0.11:6379');
    watch.connected('10.0.0.11:6379');
    now = 2_000;
    watch.connected('10.0.0.12:6379');
    watch.connected('10.0.0.12:6379');
    watch.connected(undefined);
    assert.deepEqual(watch.primary, { role: 'primary', address: '10.0.0.12:6379', since: 2_000, switches: 1 });
    assert.deepEqual(logger.lines, ['info redis storage primary is 10.0.0.11:6379', 'warn redis storage failover: the primary is now 10.0.0.12:6379 (was 10.0.0.11:6379)']);
  });
});

describe('the +switch-master watch', () => {
  it('reads the group and the new primary of an announcement', () => {
    assert.deepEqual(parseSwitchMaster('mymaster 127.0.0.1 6379 127.0.0.1 6380'), { group: 'mymaster', host: '127.0.0.1', port: 6380 });
    assert.deepEqual(parseSwitchMaster('g ::1 6379 ::1 6381'), { group: 'g', host: '::1', port: 6381 });
  });

  it('ignores anything that is not an announcement: fields missing or extra, a port that is not one', () => {
    for (const message of ['', 'mymaster 127.0.0.1 6379 127.0.0.1', 'mymaster 127.0.0.1 6379 127.0.0.1 6380 x', 'mymaster  6379 127.0.0.1 6380', 'm a 1 b 0', 'm a 1 b 65536', 'm a 1 b 63.5', 'm a 1 b 0x10']) {
      assert.equal(parseSwitchMaster(message), undefined, message);
    }
  });

  it('moves a connection only for its own group and only off another server than the one announced', () => {
    const announced = { group: 'mymaster', host: '127.0.0.1', port: 6380 };
    assert.equal(mustMove(announced, 'mymaster', '127.0.0.1:6379'), true, 'still on the old primary');
    assert.equal(mustMove(announced, 'mymaster', '127.0.0.1:6380'), false, 'a late announcement of the primary it is on');
    assert.equal(mustMove(announced, 'othergroup', '127.0.0.1:6379'), false, 'another group watched by the same sentinels');
    assert.equal(mustMove(announced, 'mymaster', undefined), true, 'address unknown: ask the sentinels again');
    assert.equal(mustMove({ group: 'g', host: '::1', port: 6381 }, 'g', '[::1]:6381'), false, 'IPv6 as the socket renders it');
  });
});

describe('parseSentinelAddresses', () => {
  it('reads host:port lists separated by commas, spaces or new lines, IPv6 in brackets', () => {
    assert.deepEqual(parseSentinelAddresses(' a.example:26379,b:1\n[fd00::1]:65535  c-1.internal:26380 '), [
      { host: 'a.example', port: 26379 },
      { host: 'b', port: 1 },
      { host: 'fd00::1', port: 65535 },
      { host: 'c-1.internal', port: 26380 },
    ]);
  });

  it('refuses the whole list when any entry is not host:port', () => {
    for (const text of ['', ' , ', 'a', 'a:0', 'a:65536', 'a:1,b', 'fd00::1:26379', 'user@a:1', 'a:1/0']) assert.equal(parseSentinelAddresses(text), undefined, text);
  });
});

describe('redisErrorToken in Sentinel mode', () => {
  it('names unreachable sentinels, and a refused sentinel password as WRONGPASS', () => {
    assert.equal(redisErrorToken(new Error('All sentinels are unreachable. Retrying from scratch after 200ms. Last error: connect ECONNREFUSED 10.0.0.5:26379')), 'SENTINELS_UNREACHABLE');
    assert.equal(redisErrorToken(new Error('All sentinels are unreachable. Retrying from scratch after 200ms. Last error: Connection timed out')), 'SENTINELS_UNREACHABLE');
    assert.equal(redisErrorToken(new Error('All sentinels are unreachable. Retrying from scratch after 200ms. Last error: WRONGPASS invalid username-password pair or user is disabled.')), 'WRONGPASS');
  });
});
