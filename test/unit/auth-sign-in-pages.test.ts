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

/** Accept-Language headers and the page language each must give. */
const CHOICES: ReadonlyArray<readonly [string | undefined, string, string]> = [
  // [header, language, why]
  ['de-DE,de;q=0.9,en-US;q=0.8', 'de', 'the preferred language'],
  ['JA-jp', 'ja', 'a primary subtag, in any case'],
  ['en-GB', 'en-US', 'English of another region'],
  ['fr-CH, fr;q=0.9, de;q=0.7, *;q=0.5', 'de', 'the first shipped one down the list'],
  ['en;q=0.4, ja;q=0.8', 'ja', 'quality, not position'],
  ['de;q=0, ja;q=0.1', 'ja', 'q=0 refuses a language'],
  ['de;q=0.5, ja;q=0.5', 'de', 'position among equal qualities'],
  [undefined, 'en-US', 'no header'],
  ['fr-FR', 'en-US', 'no shipped language asked for'],
  ['*', 'en-US', 'only the wildcard'],
  [';;,,', 'en-US', 'garbage'],
  ['x'.repeat(5000), 'en-US', 'a long unknown tag'],
];

describe('pickPageLanguage', () => {
  for (const [header, language, why] of CHOICES) {
    it(`gives ${language} for ${why}`, () => assert.equal(pickPageLanguage(header), language));
  }
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
