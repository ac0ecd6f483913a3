import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** The system Chromium (Debian package) driven by playwright-core; no Playwright browser download. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(chromiumPath)
    ? undefined
    : `Chromium not found at ${chromiumPath}; install Debian chromium or set CHROMIUM_PATH`;
}

const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface EditorBrowser {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught exceptions in the page (`pageerror`), as name: message + stack. */
  readonly pageErrors: string[];
  /** console.error output, with the source location when Chromium gives one. */
  readonly consoleErrors: string[];
  /** Responses with an HTTP status >= 400, as `status method url`. */
  readonly failedResponses: string[];
  /** Requests the page tried to send anywhere but 127.0.0.1; they are aborted. */
  readonly offHostRequests: string[];
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh context and one page, in `locale` when given. Every request the page makes to a host other
 * than 127.0.0.1 is aborted and recorded, so a test can assert the editor stays on loopback.
 */
export async function launchEditorBrowser(options: { locale?: string } = {}): Promise<EditorBrowser> {
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: LAUNCH_ARGS });
  try {
    // The locale is the browser's language (navigator.language, Accept-Language), which Node-RED's
    // editor follows for its own texts and for the palette's catalogs and help.
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, ...(options.locale ? { locale: options.locale } : {}) });
    const pageErrors: string[] = [];
    const consoleErrors: string[] = [];
    const failedResponses: string[] = [];
    const offHostRequests: string[] = [];

    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1') return route.continue();
      offHostRequests.push(route.request().url());
      return route.abort('blockedbyclient');
    });

    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}\n${error.stack ?? ''}`));
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const where = message.location().url;
      consoleErrors.push(where ? `${message.text()} (at ${where})` : message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) failedResponses.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    });

    return {
      browser,
      context,
      page,
      pageErrors,
      consoleErrors,
      failedResponses,
      offHostRequests,
      async close() {
        await context.close().catch(() => undefined);
        await browser.close();
      },
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * Loads the Node-RED editor at `adminUrl` and waits until it is usable: the palette lists
 * `paletteType`, the flow holding `nodeId` is loaded, and the first-run telemetry question (asked by
 * Node-RED 4.1+ of every admin user in a fresh user directory) is answered "no" so no popover covers
 * the workspace, and Node-RED's rotating tips are off.
 */
export async function openEditor(page: Page, adminUrl: string, options: { nodeId: string; paletteType: string }): Promise<void> {
  await page.goto(`${adminUrl}/`, { waitUntil: 'domcontentloaded' });
  await page.locator(`.red-ui-palette-node[data-palette-type="${options.paletteType}"]`).waitFor({ state: 'attached', timeout: 60_000 });
  await page.waitForFunction(
    (id) => {
      const g = globalThis as { RED?: any; $?: any };
      return Boolean(g.RED?.nodes?.node?.(id)) && typeof g.$ === 'function' && !g.$('#red-ui-loading-progress').is(':visible');
    },
    options.nodeId,
    { timeout: 60_000 },
  );
  // Node-RED's rotating tips in the info sidebar run on timers; in Node-RED 5.0 one of them once threw
  // (TypeError "reading 'html'" in its tip rotation, red.min.js) during this suite. They are Node-RED's,
  // not the palette's, so they are turned off, as a user can in the View settings.
  await page.evaluate(() => (globalThis as { RED?: any }).RED.actions.invoke('core:toggle-show-tips', false));
  const asksTelemetry = await page.evaluate(() => {
    const red = (globalThis as { RED?: any }).RED;
    return red.settings.telemetryEnabled === undefined && red.user.hasPermission('settings.write');
  });
  if (asksTelemetry) {
    // The question's "no" button, in the editor's language; it shows 100 ms after the loader ends.
    const no = await page.evaluate(() => String((globalThis as { RED?: any }).RED._('telemetry.disableLabel')));
    const button = page.locator('.red-ui-popover button', { hasText: no });
    await button.click({ timeout: 30_000 });
    await button.waitFor({ state: 'detached', timeout: 30_000 });
  }
}
