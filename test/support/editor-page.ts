// Steps on the Node-RED editor page that several editor tests take: opening and cancelling edit
// trays and typing into the code editors.
import type { Locator, Page } from 'playwright-core';

// Globals of the editor page, only ever used inside page.evaluate / waitForFunction callbacks.
declare const RED: any;
declare const monaco: any;
declare const ace: any;

export const WAIT = { timeout: 30_000 };

/** Replaces the text of the code editor (monaco by default, ace if so configured) inside `containerId`. */
export async function setCodeEditorText(page: Page, containerId: string, text: string): Promise<void> {
  await page.evaluate(
    ({ containerId, text }) => {
      const container = document.getElementById(containerId);
      if (!container) throw new Error(`no element #${containerId}`);
      if (typeof monaco !== 'undefined') {
        const editor = monaco.editor.getEditors().find((e: any) => container.contains(e.getContainerDomNode()));
        if (!editor) throw new Error(`no monaco editor in #${containerId}`);
        editor.setValue(text);
        return;
      }
      if (typeof ace !== 'undefined') {
        ace.edit(container).setValue(text, -1);
        return;
      }
      throw new Error('neither monaco nor ace is loaded');
    },
    { containerId, text },
  );
}

/** Sets `field` to `value` and fires its change event, as a user's edit does: what a dialog's checks react to. */
export async function changeTo(field: Locator, value: string): Promise<void> {
  await field.fill(value);
  await field.dispatchEvent('change');
}

export async function openNodeDialog(page: Page, id: string, firstField: string): Promise<void> {
  await page.evaluate((nodeId) => RED.editor.edit(RED.nodes.node(nodeId)), id);
  await page.locator(firstField).waitFor({ state: 'visible', ...WAIT });
}

/** A node whose dialog a test opens, and the field the dialog shows first; a config node's opens in the config editor. */
export interface NodeDialog {
  readonly type: string;
  readonly id: string;
  readonly field: string;
  readonly config: boolean;
}

/** Opens the edit dialog of `dialog`'s node and waits for its first field. */
export async function openDialogOf(page: Page, dialog: NodeDialog): Promise<void> {
  if (dialog.config) await page.evaluate(({ type, id }) => RED.editor.editConfig('', type, id, 'node-config-input'), dialog);
  else await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), dialog.id);
  await page.locator(dialog.field).waitFor({ state: 'visible', ...WAIT });
}

/** Cancels the open dialog of `dialog`'s node, waits until it is gone, and tells what the node is then. */
export async function cancelDialogOf(page: Page, dialog: NodeDialog): Promise<{ valid: boolean; errors: string[]; dirty: boolean }> {
  await cancelOpenDialogs(page);
  await page.locator(dialog.field).waitFor({ state: 'detached', ...WAIT });
  return page.evaluate((id) => {
    const node = RED.nodes.node(id);
    return { valid: node.valid, errors: node.validationErrors ?? [], dirty: Boolean(node.changed) };
  }, dialog.id);
}

/**
 * Cancels every open edit tray, topmost first (also after a failed test, so the next one starts
 * clean). Node-RED keeps only the topmost tray in the DOM, so this clicks the one Cancel button there
 * is and waits for that button to go before looking for the next.
 */
export async function cancelOpenDialogs(page: Page): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    const cancel = await page.$('#node-config-dialog-cancel, #node-dialog-cancel');
    if (!cancel) return;
    await cancel.click(WAIT);
    await page.waitForFunction((button) => !button.isConnected, cancel, WAIT);
    await cancel.dispose();
  }
}

