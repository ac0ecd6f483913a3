// The bridge's page for a client it cannot verify: which shipped language a browser gets, and the
// catalogs that page reads (the editor's own, so a page is translated wherever a dialog is).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadSignInPageTexts, PAGE_LANGUAGES, pickPageLanguage } from '../../lib/auth/pages/page-texts.js';

const locales = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'locales');

describe('pickPageLanguage', () => {
  it('takes the shipped language the browser prefers, by exact tag or primary subtag', () => {
    assert.equal(pickPageLanguage('de-DE,de;q=0.9,en-US;q=0.8'), 'de');
    assert.equal(pickPageLanguage('ja'), 'ja');
    assert.equal(pickPageLanguage('JA-jp'), 'ja');
    assert.equal(pickPageLanguage('en-GB'), 'en-US');
    assert.equal(pickPageLanguage('fr-CH, fr;q=0.9, de;q=0.7, *;q=0.5'), 'de');
  });

  it('orders by quality, not by position, and skips ranges refused with q=0', () => {
    assert.equal(pickPageLanguage('en;q=0.4, ja;q=0.8'), 'ja');
    assert.equal(pickPageLanguage('de;q=0, ja;q=0.1'), 'ja');
    assert.equal(pickPageLanguage('de;q=0.5, ja;q=0.5'), 'de');
  });

  it('falls back to en-US for no header, only unshipped languages, a wildcard or garbage', () => {
    for (const header of [undefined, '', 'fr-FR', '*', ';;,,', 'x'.repeat(5000)]) assert.equal(pickPageLanguage(header), 'en-US', String(header).slice(0, 20));
  });
});

describe('loadSignInPageTexts', () => {
  it('reads every shipped language from the catalogs', () => {
    const texts = loadSignInPageTexts(locales);
    assert.deepEqual(Object.keys(texts), [...PAGE_LANGUAGES]);
    const en = JSON.parse(readFileSync(join(locales, 'en-US', 'mcp-auth.json'), 'utf8'))['mcp-auth'].signInPage;
    assert.deepEqual(texts['en-US'], en);
    assert.notEqual(texts.de.problems.clientRefused.heading, en.problems.clientRefused.heading);
  });

  it('refuses a catalog whose page texts are incomplete, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sign-in-pages-'));
    try {
      for (const language of PAGE_LANGUAGES) {
        mkdirSync(join(dir, language));
        const catalog = JSON.parse(readFileSync(join(locales, language, 'mcp-auth.json'), 'utf8'));
        if (language === 'ja') delete catalog['mcp-auth'].signInPage.problems.redirectRefused.message;
        writeFileSync(join(dir, language, 'mcp-auth.json'), JSON.stringify(catalog));
      }
      assert.throws(() => loadSignInPageTexts(dir), /locales\/ja\/mcp-auth\.json: signInPage is incomplete/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
