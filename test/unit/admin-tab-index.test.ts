import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TAB_MAIN, fixtureFlows, startGetFlowHarness, type ConfigEntry } from '../support/flow-fixtures.js';
import { TabIndex } from '../../lib/admin/tab-index.js';

describe('TabIndex', () => {
  it('walks the configuration once per deploy generation', () => {
    let walks = 0;
    let generation = 7;
    const config: Record<string, unknown>[] = [
      { id: 't1', type: 'tab', label: 'One' },
      { id: 'n1', type: 'debug', z: 't1', x: 1, y: 1 },
      { id: 'c1', type: 'some-config', z: 't1' },
      { id: 'g1', type: 'group', z: 't1', x: 0, y: 0 },
      { id: 'global-config', type: 'some-config' },
    ];
    const index = new TabIndex(
      (visit) => {
        walks += 1;
        config.forEach(visit);
      },
      () => generation,
    );
    const first = index.get();
    assert.equal(first.cached, false);
    assert.deepEqual(first.snapshot.tabs, [{ id: 't1', label: 'One', disabled: false, nodeCount: 1, groupCount: 1, configCount: 1 }]);
    assert.equal(first.snapshot.scanned, 5);
    const second = index.get();
    assert.equal(second.cached, true);
    assert.equal(second.snapshot, first.snapshot);
    assert.equal(walks, 1);
    generation += 1;
    config.push({ id: 't2', type: 'tab', label: 'Two', disabled: true });
    const third = index.get();
    assert.equal(third.cached, false);
    assert.deepEqual(third.snapshot.tabs.map((tab) => tab.id), ['t1', 't2']);
    assert.equal(walks, 2);
  });

  it('counts nodes of tabs listed after them, and ignores subflow contents', () => {
    const config: Record<string, unknown>[] = [
      { id: 'n1', type: 'debug', z: 't1', x: 1, y: 1 },
      { id: 's1', type: 'subflow', name: 'S' },
      { id: 'sn', type: 'debug', z: 's1', x: 1, y: 1 },
      { id: 't1', type: 'tab' },
    ];
    const { snapshot } = new TabIndex((visit) => config.forEach(visit), () => 0).get();
    assert.deepEqual(snapshot.tabs, [{ id: 't1', label: undefined, disabled: false, nodeCount: 1, groupCount: 0, configCount: 0 }]);
  });

  it('stops past its entry limit and says so', () => {
    const config = [{ id: 't1', type: 'tab' }, ...Array.from({ length: 20 }, (_, index) => ({ id: `n${index}`, type: 'debug', z: 't1', x: 0, y: 0 })), { id: 't2', type: 'tab' }];
    let visited = 0;
    const { snapshot } = new TabIndex(
      (visit) =>
        config.forEach((entry) => {
          visited += 1;
          visit(entry);
        }),
      () => 0,
      10,
    ).get();
    assert.equal(snapshot.truncated, true);
    assert.equal(snapshot.scanned, 10);
    assert.equal(visited, 11);
    assert.deepEqual(snapshot.tabs.map((tab) => tab.id), ['t1']);
  });

  it('lets other errors from the walk through', () => {
    const index = new TabIndex(() => {
      throw new Error('runtime not started');
    }, () => 0);
    assert.throws(() => index.get(), /runtime not started/);
  });
});

describe('get_flow tab index caching', () => {
  it('reports meta.cached: false, then true, then false after a deploy', async () => {
    const flow = await startGetFlowHarness();
    try {
      const first = await flow.call();
      assert.equal(first.data.meta.cached, false);
      assert.equal(first.answer.cached, false);
      assert.ok((first.data.meta.scannedNodes as number) > 0);

      const second = await flow.call();
      assert.equal(second.data.meta.cached, true);
      assert.equal(second.answer.cached, true);
      assert.equal(second.data.meta.scannedNodes, 0);
      assert.deepEqual(second.data.tabs, first.data.tabs);

      // Tab modes use the same index to check the id.
      const summary = await flow.call({ id: TAB_MAIN });
      assert.equal(summary.data.meta.cached, true);

      const redeployed: ConfigEntry[] = [...fixtureFlows(), { id: 'tab-new', type: 'tab', label: 'New', disabled: false }];
      flow.deploy(redeployed);
      const third = await flow.call();
      assert.equal(third.data.meta.cached, false);
      assert.equal(third.answer.cached, false);
      assert.ok((third.data.tabs as { id: string }[]).some((tab) => tab.id === 'tab-new'));
      assert.equal((await flow.call()).data.meta.cached, true);
    } finally {
      await flow.close();
    }
  });

  it('excludes changes that were not deployed', async () => {
    const flow = await startGetFlowHarness();
    try {
      await flow.call();
      // The configuration changes but no deploy happened: the cached index still answers.
      flow.api.config = [...fixtureFlows(), { id: 'tab-draft', type: 'tab', label: 'Draft' }];
      const { data } = await flow.call();
      assert.ok(!(data.tabs as { id: string }[]).some((tab) => tab.id === 'tab-draft'));
    } finally {
      await flow.close();
    }
  });
});
