// The MCP sidebar as a user meets it at the default window size (1440 x 1000), on whichever Node-RED
// line runs the suite (4.1, or 5 under `npm run test:node-red-5`): the plug button is in view and Try
// it is near the top; Connect a client folds and its commands wrap between words; Try it follows a
// deploy made through the admin API and clears what it showed when the user switches; recent calls
// fit the card in English, German and Japanese, in the words Try it uses, and outlive a Full deploy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { tool } from '../support/flows.js';
import { connect, waitForEndpoint } from '../support/mcp-http.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { LOCAL_SERVER, SIDEBAR_TAB, sidebarFlow } from '../support/sidebar-flow.js';

declare const RED: any;

const WAIT = { timeout: 30_000 };
const skip = chromiumMissing();
/**
 * The palette's page errors (their stacks name its resources/@flowmcp/ files). Node-RED 5's own tip
 * rotation can throw once before openEditor turns the tips off; that one is Node-RED's, not ours.
 */
const paletteErrors = (errors: readonly string[]) => errors.filter((error) => /flowmcp|mcp-sidebar/.test(error));
type Catalog = Record<string, any>;
const card = `.flowmcp-endpoint[data-endpoint-id="${LOCAL_SERVER}"]`;

describe('MCP sidebar at the default window size', () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;
  let port = 0;
  const catalogs: Record<string, Catalog> = {};
  const page = () => session!.page;
  const local = () => page().locator(card);

  async function callFromClient(calls: { name: string; arguments: Record<string, unknown> }[]): Promise<void> {
    const client = await connect(`http://127.0.0.1:${port}/mcp`, 'modern');
    try {
      for (const call of calls) await client.callTool(call);
    } finally {
      await client.close();
    }
  }

  before(async () => {
    if (skip) return;
    port = await freePort();
    nodeRed = await startNodeRed(sidebarFlow(port), { env: { MCP_SIDEBAR_SECRET: 'unused' } });
    await waitForEndpoint(`http://127.0.0.1:${port}/mcp`);
    for (const lang of ['en-US', 'de', 'ja']) {
      const all = (await (await fetch(`${nodeRed.adminUrl}/nodes/messages?lng=${lang}`)).json()) as Record<string, Catalog>;
      catalogs[lang] = all['@flowmcp/node-red-mcp/mcp-flow-server']!['mcp-flow-server'].sidebar;
    }
    // One call of each status the card shows in words.
    await callFromClient([
      { name: 'echo', arguments: { text: 'a' } },
      { name: 'echo', arguments: { times: 0 } },
      { name: 'broken', arguments: {} },
    ]);
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: LOCAL_SERVER, paletteType: 'mcp-flow-server' });
  });

  after(async () => {
    await session?.close();
    await nodeRed?.stop();
  });

  it('shows the plug button without opening a menu, and Try it in view when the tab opens', { skip }, async () => {
    // Node-RED 4.1: a link button in the sidebar's tab row; Node-RED 5: a button in its tab bar.
    const plug = page().locator('a.red-ui-tab-link-button[href="#flowmcp-sidebar"], button[data-tab-id="flowmcp-sidebar"]');
    await plug.first().waitFor({ state: 'attached', ...WAIT });
    const shown = await plug.evaluateAll((buttons) =>
      buttons.filter((button) => {
        const box = button.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && box.right <= window.innerWidth && box.bottom <= window.innerHeight;
      }).length,
    );
    assert.equal(shown, 1, 'one plug button in view');
    assert.equal(await plug.locator('i.fa-plug').count(), 1);
    await plug.evaluateAll((buttons) => (buttons.find((button) => button.getBoundingClientRect().width > 0) as HTMLElement).click());
    await local().locator('.flowmcp-state[data-state="serving"]').waitFor({ state: 'visible', ...WAIT });
    // Unscrolled, Try it's heading lies inside the pane the tab got (255 px high on Node-RED 5).
    const place = await page().evaluate((selector) => {
      const pane = document.querySelector('.flowmcp-sidebar')!.getBoundingClientRect();
      const summary = document.querySelector(`${selector} .flowmcp-try > summary`)!.getBoundingClientRect();
      return { paneBottom: pane.bottom, summaryBottom: summary.bottom, scrolled: document.querySelector('.flowmcp-sidebar')!.scrollTop };
    }, card);
    assert.equal(place.scrolled, 0);
    assert.ok(place.summaryBottom <= place.paneBottom, `Try it at ${place.summaryBottom} px, the pane ends at ${place.paneBottom} px`);
  });

  it('folds Connect a client, remembers it open, and wraps commands between words or after a slash', { skip }, async () => {
    const section = local().locator('details.flowmcp-connect-section');
    assert.equal(await section.evaluate((details: HTMLDetailsElement) => details.open), false, 'folded the first time');
    await section.locator('> summary').click(WAIT);
    for (const client of ['claude', 'codex', 'vscode', 'cursor']) {
      await section.locator(`.flowmcp-command[data-client="${client}"] > summary`).waitFor({ state: 'visible', ...WAIT });
    }
    // Every client's text open, to measure where each line ends.
    await section.locator('.flowmcp-command').evaluateAll((rows) => rows.forEach((row) => ((row as HTMLDetailsElement).open = true)));
    const breaks = await section.locator('.flowmcp-command-text').evaluateAll((pres) =>
      pres.flatMap((pre) => {
        const found: string[] = [];
        const box = pre.getBoundingClientRect();
        if (pre.scrollWidth > pre.clientWidth + 1) found.push(`overflows: ${pre.textContent}`);
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
        const chars: { ch: string; top: number }[] = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (let i = 0; i < text.length; i += 1) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = range.getClientRects()[0];
            if (rect && rect.width > 0) chars.push({ ch: text[i]!, top: Math.round(rect.top) });
            else chars.push({ ch: text[i]!, top: -1 });
          }
        }
        let lastTop = -1;
        let previous = '';
        for (const { ch, top } of chars) {
          if (top >= 0 && lastTop >= 0 && top > lastTop && !/\s/.test(ch) && !/[\s/\n]/.test(previous)) {
            found.push(`breaks after "${previous}" before "${ch}" in ${pre.textContent}`);
          }
          if (top >= 0) lastTop = top;
          previous = ch;
        }
        return box.width > 0 ? found : ['not shown'];
      }),
    );
    assert.deepEqual(breaks, []);
    await page().reload({ waitUntil: 'domcontentloaded' });
    await openEditor(page(), nodeRed!.adminUrl, { nodeId: LOCAL_SERVER, paletteType: 'mcp-flow-server' });
    await page().evaluate(() => RED.sidebar.show('flowmcp-sidebar'));
    await local().locator('details.flowmcp-connect-section[open]').waitFor({ state: 'attached', ...WAIT });
    await local().locator('details.flowmcp-connect-section > summary').click(WAIT);
  });

  it('Try it: a full width tool picker, and what Run showed is cleared on switching mode or tool', { skip }, async () => {
    await local().locator('.flowmcp-try > summary').click(WAIT);
    const select = local().locator('select.flowmcp-try-tool');
    await select.waitFor({ state: 'visible', ...WAIT });
    const widths = await local().locator('.flowmcp-try-body').evaluate((body) => [body.getBoundingClientRect().width, body.querySelector('select')!.getBoundingClientRect().width]);
    assert.ok(widths[1]! >= widths[0]! - 2, `the picker is ${widths[1]} px of ${widths[0]} px`);
    await select.selectOption('broken');
    const output = local().locator('.flowmcp-try-output');
    const run = async () => {
      await local().locator('.flowmcp-try-run').click(WAIT);
      await output.locator('.flowmcp-try-status').waitFor({ state: 'visible', ...WAIT });
    };
    await run();
    await local().locator('.flowmcp-mode-json').click(WAIT);
    assert.equal(await output.innerHTML(), '', 'switching to JSON clears the result');
    await run();
    await local().locator('.flowmcp-mode-form').click(WAIT);
    assert.equal(await output.innerHTML(), '', 'switching to the form clears the result');
    await run();
    await select.selectOption('pixel');
    assert.equal(await output.innerHTML(), '', 'another tool clears the result');
  });

  it('Try it offers the tools of a deploy made through the admin API, without a refresh', { skip }, async () => {
    const flows = await nodeRed!.getFlows();
    await nodeRed!.deploy([...flows, tool('sl-late', { name: 'late_tool', z: SIDEBAR_TAB })], 'nodes');
    await page().waitForFunction(
      (selector) => [...document.querySelectorAll(`${selector} select.flowmcp-try-tool option`)].some((option) => (option as HTMLOptionElement).value === 'late_tool'),
      card,
      WAIT,
    );
  });

  it('keeps recent calls across a Full deploy of the same endpoint', { skip }, async () => {
    const before = await local().locator('.flowmcp-recent-call').count();
    assert.ok(before >= 3, `${before} recent calls before the deploy`);
    const since = nodeRed!.output().length;
    await nodeRed!.deploy(await nodeRed!.getFlows(), 'full');
    await nodeRed!.waitForOutput('Started flows', since);
    await waitForEndpoint(`http://127.0.0.1:${port}/mcp`);
    await callFromClient([{ name: 'echo', arguments: { text: 'after' } }]);
    await page().waitForFunction(
      ({ selector, count }) => document.querySelectorAll(`${selector} .flowmcp-recent-call`).length === count,
      { selector: card, count: Math.min(before + 1, 20) },
      WAIT,
    );
  });

  for (const lang of ['en-US', 'de', 'ja']) {
    it(`recent calls fit the card in ${lang}, in the words Try it uses`, { skip }, async () => {
      const view = await launchEditorBrowser({ locale: lang });
      try {
        await openEditor(view.page, nodeRed!.adminUrl, { nodeId: LOCAL_SERVER, paletteType: 'mcp-flow-server' });
        await view.page.evaluate(() => RED.sidebar.show('flowmcp-sidebar'));
        // The first list can take a while on a loaded machine; nothing here waits on a timer.
        await view.page.locator(`${card} .flowmcp-recent-call`).nth(2).waitFor({ state: 'attached', timeout: 90_000 });
        const measured = await view.page.locator(card).evaluate((cardElement) => {
          const inner = cardElement.getBoundingClientRect();
          const problems: string[] = [];
          for (const element of cardElement.querySelectorAll('.flowmcp-recent *')) {
            const box = element.getBoundingClientRect();
            if (box.width === 0) continue;
            if (box.right > inner.right + 0.5 || box.left < inner.left - 0.5) problems.push(`${element.className} leaves the card (${box.left}-${box.right} of ${inner.left}-${inner.right})`);
          }
          for (const part of cardElement.querySelectorAll('.flowmcp-recent-time, .flowmcp-recent-duration, .flowmcp-recent-status, .flowmcp-recent .flowmcp-section-title')) {
            const lineHeight = parseFloat(getComputedStyle(part).lineHeight) || parseFloat(getComputedStyle(part).fontSize) * 1.5;
            if (part.getBoundingClientRect().height > lineHeight * 1.5) problems.push(`${part.className} wraps: ${part.textContent}`);
            if ((part as HTMLElement).scrollWidth > (part as HTMLElement).clientWidth + 1) problems.push(`${part.className} is cut: ${part.textContent}`);
          }
          const statuses = [...cardElement.querySelectorAll('.flowmcp-recent-call')].map((row) => [row.getAttribute('data-status'), row.querySelector('.flowmcp-recent-status')?.textContent]);
          return { problems, statuses };
        });
        assert.deepEqual(measured.problems, []);
        const words = catalogs[lang]!.status;
        const shown = new Map(measured.statuses.map(([status, text]) => [status, text]));
        for (const status of ['success', 'invalid_arguments', 'error']) {
          assert.equal(shown.get(status), words[status], `${status} in ${lang}`);
        }
        assert.deepEqual(paletteErrors(view.pageErrors), []);
      } finally {
        await view.close();
      }
    });
  }

  it('kept the session free of page errors and failed palette requests', { skip }, () => {
    assert.deepEqual(paletteErrors(session!.pageErrors), []);
    assert.deepEqual(session!.failedResponses, []);
    assert.deepEqual(session!.offHostRequests, []);
  });
});
