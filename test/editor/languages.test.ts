// The palette in each language the editor ships for it (en-US, de, ja), in headless Chromium whose
// browser language picks the editor's: every dialog shows its catalog's texts in that language (no
// raw key, no English left where a translation exists), its labels fit on one line, its validation
// speaks the language, and every help page is the translated one.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { ADD_NUMBERS, AUTH, catalogFile, DIALOGS, everyDialogFlow, helpFileText } from '../support/editor-dialogs.js';
import { cancelDialogOf, cancelOpenDialogs, openDialogOf, openNodeDialog, setCodeEditorText, WAIT } from '../support/editor-page.js';
import { repoRoot, startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

// Globals of the editor page, only ever used inside page.evaluate / waitForFunction callbacks.
declare const RED: any;

const LANGUAGES = ['en-US', 'de', 'ja'] as const;
const skip = chromiumMissing();

/** An English text long enough that finding it on a translated page means a fallback, not a coincidence. */
function englishOnlyFragments(lang: string, type: string): string[] {
  if (lang === 'en-US') return [];
  const english = catalogFile('en-US', type);
  const translated = catalogFile(lang, type);
  const fragments: string[] = [];
  for (const [key, text] of english) {
    if (translated.get(key) === text) continue;
    const longest = text.split(/__\w+__/).map((part) => part.trim()).sort((a, b) => b.length - a.length)[0] ?? '';
    if (longest.length >= 12 && /[a-z]{3} [a-z]{2}/i.test(longest)) fragments.push(longest);
  }
  return fragments;
}

describe('the palette in every editor language', () => {
  let nodeRed: NodeRedProcess | undefined;

  before(async () => {
    if (skip) return;
    nodeRed = await startNodeRed(everyDialogFlow(await freePort()), { env: { MCP_EDITOR_TEST_SECRET: 'unused' } });
  });

  after(async () => {
    await nodeRed?.stop();
  });

  for (const lang of LANGUAGES) {
    describe(lang, () => {
      let session: EditorBrowser | undefined;
      const page = () => session!.page;

      before(async () => {
        if (skip) return;
        session = await launchEditorBrowser({ locale: lang });
        await openEditor(session.page, nodeRed!.adminUrl, { nodeId: ADD_NUMBERS, paletteType: 'mcp-tool-registry' });
      });

      after(async () => {
        await session?.close();
      });

      it('the editor runs in this language', { skip }, async () => {
        const language = await page().evaluate(() => RED.i18n.lang());
        assert.equal(language.split('-')[0], lang.split('-')[0], `the editor picked ${lang} from the browser`);
      });

      it('opens every dialog with its texts in this language, labels on one line, and cancels it unchanged', { skip }, async () => {
        const p = page();
        const problems: string[] = [];
        const wrapped: string[] = [];
        for (const dialog of DIALOGS) {
          const errorsBefore = session!.pageErrors.length;
          await openDialogOf(p, dialog);
          const catalog = Object.fromEntries(catalogFile(lang, dialog.type));
          const shown = await p.evaluate(
            ({ type, catalog, fragments }) => {
              const tray = document.querySelector('.red-ui-tray:last-of-type .red-ui-tray-body');
              if (!tray) return { problems: ['no edit tray open'], wrapped: [] as string[] };
              const problems: string[] = [];
              const keyPattern = new RegExp(`\\b${type}\\.[A-Za-z]+\\.`);
              for (const element of tray.querySelectorAll('[data-i18n]')) {
                for (const directive of (element.getAttribute('data-i18n') ?? '').split(';')) {
                  const attribute = /^\[(\w+)\]/.exec(directive)?.[1];
                  const key = directive.replace(/^\[\w+\]/, '');
                  const text = (!attribute || attribute === 'html' || attribute === 'text' ? element.textContent : element.getAttribute(attribute)) ?? '';
                  const expected = key.startsWith(`${type}.`) ? catalog[key.slice(type.length + 1)] : undefined;
                  if (!text.trim() || keyPattern.test(text)) problems.push(`${directive}: untranslated`);
                  else if (expected !== undefined && text.trim() !== expected.trim()) problems.push(`${directive}: shows "${text.trim()}", not "${expected}"`);
                }
              }
              const trayText = (tray as HTMLElement).innerText;
              if (keyPattern.test(trayText)) problems.push('a catalog key shown as text');
              for (const fragment of fragments) if (trayText.includes(fragment)) problems.push(`English text shown: "${fragment}"`);
              // A label wraps when its text runs over more than one line box.
              const wrapped: string[] = [];
              for (const label of tray.querySelectorAll<HTMLElement>('.form-row > label')) {
                if (label.offsetParent === null || !label.textContent?.trim()) continue;
                const range = document.createRange();
                range.selectNodeContents(label);
                const lineHeight = parseFloat(getComputedStyle(label).fontSize) * 1.2;
                const tops = [...range.getClientRects()].filter((rect) => rect.width > 0 && rect.height > 0).map((rect) => rect.top).sort((a, b) => a - b);
                const lines = tops.filter((top, index) => index === 0 || top - tops[index - 1]! > lineHeight / 2).length;
                if (lines > 1) wrapped.push(label.textContent.trim());
              }
              return { problems, wrapped };
            },
            { type: dialog.type, catalog, fragments: englishOnlyFragments(lang, dialog.type) },
          );
          problems.push(...shown.problems.map((problem) => `${dialog.type}: ${problem}`));
          wrapped.push(...shown.wrapped.map((label) => `${dialog.type}: ${label}`));
          assert.deepEqual(session!.pageErrors.slice(errorsBefore), [], `${dialog.type} (${lang}): no page error while opening the dialog`);
          assert.deepEqual(await cancelDialogOf(p, dialog), { valid: true, errors: [], dirty: false }, `${dialog.type} (${lang}): valid and unchanged after cancel`);
        }
        assert.deepEqual(problems, [], `${lang}: texts of the dialogs`);
        assert.deepEqual(wrapped, [], `${lang}: labels that wrap`);
      });

      it('validates in this language: a bad tool name and a misspelt schema type', { skip }, async () => {
        const p = page();
        const text = catalogFile(lang, 'mcp-tool-registry');
        await openNodeDialog(p, ADD_NUMBERS, '#node-input-toolName');
        const toolName = p.locator('#node-input-toolName');
        await toolName.fill('bad name');
        await toolName.dispatchEvent('change');
        await p.locator('#node-input-toolName.input-error').waitFor({ state: 'attached', ...WAIT });
        await toolName.hover();
        await p.locator('.red-ui-popover', { hasText: text.get('errors.invalidToolName')! }).waitFor({ state: 'visible', ...WAIT });

        await setCodeEditorText(p, 'node-input-inputSchema-editor', '{"type":"object","properties":{"a":{"type":"numbr"}}}');
        const errors = p.locator('#mcp-tool-registry-inputSchema-status ul.mcp-schema-errors li');
        await errors.first().waitFor({ state: 'visible', ...WAIT });
        const where = text.get('schemaIssue.at')!.replace('__path__', 'properties.a.type');
        const values = '"array", "boolean", "integer", "null", "number", "object", "string"';
        assert.deepEqual(await errors.allInnerTexts(), [text.get('schemaIssue.enum')!.replace('__where__', where).replace('__values__', values)]);
        await cancelOpenDialogs(p);
        await toolName.waitFor({ state: 'detached', ...WAIT });
        assert.equal(await p.evaluate((id) => RED.nodes.node(id).toolName, ADD_NUMBERS), 'add_numbers', 'cancel keeps the name');
      });

      it('opens mcp auth on the OIDC tab', { skip }, async () => {
        const p = page();
        await p.evaluate((id) => RED.editor.editConfig('', 'mcp-auth', id, 'node-config-input'), AUTH);
        await p.locator('#mcp-auth-tab-oidc').waitFor({ state: 'visible', ...WAIT });
        const tabs = await p.evaluate(() => ({
          active: document.querySelector('#node-config-mcp-auth-provider-tabs li.red-ui-tab.active a')?.getAttribute('href'),
          entraShown: (document.getElementById('mcp-auth-tab-entra') as HTMLElement).offsetParent !== null,
          provider: (document.getElementById('node-config-input-provider') as HTMLInputElement).value,
        }));
        assert.deepEqual(tabs, { active: '#mcp-auth-tab-oidc', entraShown: false, provider: 'oidc' });
        await cancelOpenDialogs(p);
      });

      it('shows every node\'s help in this language', { skip }, async () => {
        const p = page();
        for (const dialog of DIALOGS) {
          const label = catalogFile(lang, dialog.type).get('paletteLabel')!;
          await p.evaluate((type) => RED.sidebar.help.show(type), dialog.type);
          await p.locator('h1.red-ui-help-title', { hasText: label }).waitFor({ state: 'visible', ...WAIT });
          const body = await p.evaluate((title) => {
            const heading = [...document.querySelectorAll('h1.red-ui-help-title')].find((el) => el.textContent === title);
            return (heading?.nextElementSibling?.textContent ?? '').replace(/\s+/g, '');
          }, label);
          // The page's opening sentence, in this language; never English where a translation exists.
          // Compared without white space, which markup adds or drops around inline elements.
          const opening = helpFileText(lang, dialog.type).replace(/\s+/g, '').slice(0, 60);
          assert.ok(body.includes(opening), `${dialog.type} (${lang}): the help opens with "${opening}", shown: "${body.slice(0, 120)}"`);
          if (lang !== 'en-US') {
            const english = helpFileText('en-US', dialog.type).replace(/\s+/g, '').slice(0, 60);
            assert.ok(!body.includes(english), `${dialog.type} (${lang}): no English help`);
          }
        }
      });

      it('kept the session free of palette errors', { skip }, (t) => {
        // Monaco, Node-RED's code editor, sometimes throws "Model is disposed!" from a timer after a
        // tray with a code editor closes; that is reported, not failed on. Anything of the palette's fails.
        const ours = (text: string) => /mcp|flowmcp/i.test(text);
        for (const error of session!.pageErrors.filter((text) => !ours(text))) t.diagnostic(`other page error: ${error.split('\n')[0]}`);
        assert.deepEqual(session!.pageErrors.filter(ours), [], `${lang}: no uncaught page errors from the palette`);
      });
    });
  }

  describe('dialog behaviours', () => {
    let session: EditorBrowser | undefined;
    const page = () => session!.page;

    before(async () => {
      if (skip) return;
      session = await launchEditorBrowser();
      await openEditor(session.page, nodeRed!.adminUrl, { nodeId: ADD_NUMBERS, paletteType: 'mcp-tool-registry' });
    });

    after(async () => {
      await session?.close();
    });

    it('binds a new tool, resource or prompt to the only endpoint, and to none when there are two', { skip }, async () => {
      const p = page();
      const TYPES = ['mcp-tool-registry', 'mcp-resource', 'mcp-prompt'];
      // RED.view.createNode is what a drop from the palette runs, onadd included.
      const dropped = (types: string[]) =>
        p.evaluate((list) => {
          return list.map((type) => {
            const { node } = RED.view.createNode(type, 600, 600);
            const endpoint = node.endpoint;
            return { type, endpoint };
          });
        }, types);
      assert.deepEqual(await dropped(TYPES), TYPES.map((type) => ({ type, endpoint: '/mcp' })), 'one endpoint path: bound to it');

      await p.evaluate(() => {
        const { node } = RED.view.createNode('mcp-flow-server', 600, 700);
        node.path = '/second';
        RED.nodes.add(node);
      });
      try {
        assert.deepEqual(await dropped(TYPES), TYPES.map((type) => ({ type, endpoint: '' })), 'two endpoint paths: the user chooses');
      } finally {
        await p.evaluate(() => {
          RED.nodes.eachNode((node: any) => {
            if (node.type === 'mcp-flow-server' && node.path === '/second') RED.nodes.remove(node.id);
          });
        });
      }
    });

    it('draws every example\'s return wire into mcp server clear of the nodes', { skip }, async () => {
      const p = page();
      const examples = readdirSync(join(repoRoot, 'examples')).filter((file) => file.endsWith('.json'));
      assert.ok(examples.length >= 1);
      for (const file of examples) {
        const flow = JSON.parse(readFileSync(join(repoRoot, 'examples', file), 'utf8')) as object[];
        const hidden = await p.evaluate(async (nodes) => {
          const before = new Set<string>();
          RED.nodes.eachWorkspace((ws: any) => before.add(ws.id));
          RED.view.importNodes(nodes, { generateIds: true, addFlow: true, notify: false });
          let tab = '';
          RED.nodes.eachWorkspace((ws: any) => {
            if (!before.has(ws.id)) tab = ws.id;
          });
          RED.workspaces.show(tab);
          await new Promise((resolve) => setTimeout(resolve, 500));
          const boxes: { id: string; x1: number; y1: number; x2: number; y2: number }[] = [];
          RED.nodes.eachNode((node: any) => {
            if (node.z === tab && typeof node.x === 'number') {
              boxes.push({ id: node.id, x1: node.x - node.w / 2, y1: node.y - node.h / 2, x2: node.x + node.w / 2, y2: node.y + node.h / 2 });
            }
          });
          const problems: string[] = [];
          let returnWires = 0;
          for (const path of document.querySelectorAll<SVGPathElement>('.red-ui-flow-link-path')) {
            const link = (path.parentNode as any).__data__;
            if (!link?.target || link.target.type !== 'mcp-flow-server' || link.target.z !== tab) continue;
            returnWires += 1;
            const length = path.getTotalLength();
            for (let at = 0; at <= length; at += 4) {
              const point = path.getPointAtLength(at);
              // Leaving the source and entering the server are not "behind" them.
              const inside = boxes.find((box) => box.id !== link.source.id && box.id !== link.target.id &&
                point.x > box.x1 && point.x < box.x2 && point.y > box.y1 && point.y < box.y2);
              if (inside) {
                problems.push(`${link.source.name || link.source.type} -> mcp server passes behind ${RED.nodes.node(inside.id)?.name || RED.nodes.node(inside.id)?.type}`);
                break;
              }
            }
          }
          RED.workspaces.delete(RED.nodes.workspace(tab));
          return { problems, returnWires };
        }, flow);
        assert.ok(hidden.returnWires >= 1, `${file}: has a return wire into mcp server`);
        // Node-RED draws each wire as several paths (outline, line): one report per wire is enough.
        assert.deepEqual([...new Set(hidden.problems)], [], `${file}: return wires hidden behind nodes`);
      }
    });
  });
});
