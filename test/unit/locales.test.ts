// The editor's languages against English: every catalog key and help page that en-US has, de and ja
// have too, with the same __placeholders__, translated (not copied), and every key the templates and
// node files use exists. A key added in English without its translations fails here, naming it.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const TRANSLATIONS = ['de', 'ja'] as const;
const nodeTypes = readdirSync(join(root, 'nodes'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/**
 * Keys whose text may equal the English one: node names (Node-RED's own German and Japanese editors
 * keep node names in English too), message topics, product and protocol names, examples of input,
 * and words a language shares with English. Matched against the key without its node type; `*` ends
 * a prefix.
 */
const SAME_AS_ENGLISH: Record<(typeof TRANSLATIONS)[number], readonly string[]> = {
  de: ['label.name', 'label.dcrSchemes', 'label.tasks', 'sidebar.try.tool', 'sidebar.recent.tool', 'sidebar.recent.status', 'sidebar.content.kind.prompt', 'label.runtime', 'label.text', 'label.authority', 'authority.china*', 'errors.invalidUri', 'asks.*', 'label.sentinels', 'errors.invalidAppViewMeta'],
  ja: ['label.url', 'errors.invalidUri', 'errors.invalidAppViewMeta'],
};
const SAME_IN_EVERY_LANGUAGE = [
  'paletteLabel',
  'defaultName',
  'placeholder.*',
  'provider.oidc',
  'provider.entra',
  'mode.redis',
  'mode.sentinel',
  'mode.cluster',
  'label.input',
  'label.output',
  'label.uri',
  'label.clientId',
  'label.tenantId',
  'label.port',
  'endpoint.server',
  'status.ready',
  'status.invalid',
  'status.failed',
  'sidebar.connect.*',
  'sidebar.status.error',
];

type Catalog = { [key: string]: string | Catalog };

function catalogOf(lang: string, type: string): Catalog {
  const file = join(root, 'locales', lang, `${type}.json`);
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Catalog>;
  assert.ok(parsed[type], `${lang}/${type}.json has its entries under "${type}"`);
  return parsed[type]!;
}

function flatten(catalog: Catalog, prefix = ''): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') entries.set(path, value);
    else for (const [inner, text] of flatten(value, path)) entries.set(inner, text);
  }
  return entries;
}

const placeholders = (text: string) => [...text.matchAll(/__([A-Za-z0-9]+)__/g)].map((match) => match[1]).sort();
const mayEqualEnglish = (lang: (typeof TRANSLATIONS)[number], key: string) =>
  [...SAME_IN_EVERY_LANGUAGE, ...SAME_AS_ENGLISH[lang]].some((rule) => (rule.endsWith('*') ? key.startsWith(rule.slice(0, -1)) : key === rule));

/** The help page's text without markup, for comparing languages. */
function helpText(lang: string, type: string): string {
  return readFileSync(join(root, 'locales', lang, `${type}.html`), 'utf8')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The catalog keys of the rows a template marks for the shared form code (resources/mcp-editor-form.js
 * writes them out): a row's label, placeholder, unit and options, a tip, a section's title.
 */
function sharedRowKeys(template: string): string[] {
  const keys: string[] = [];
  for (const [tag] of template.matchAll(/<div [^>]*data-(?:field|label|tip|section)\b[^>]*>/g)) {
    const attribute = (name: string) => new RegExp(` data-${name}(?:="([^"]*)")?[ >]`).exec(tag);
    const value = (name: string) => attribute(name)?.[1];
    const label = value('label') ?? value('field');
    if (label !== undefined && !attribute('section')) keys.push(`label.${label}`);
    const placeholder = attribute('placeholder');
    if (placeholder) keys.push(`placeholder.${placeholder[1] || label}`);
    if (value('unit')) keys.push(`label.${value('unit')}`);
    if (value('tip')) keys.push(`tip.${value('tip')}`);
    if (value('title')) keys.push(value('title')!);
    for (const option of (value('options') ?? '').split(' ').filter(Boolean)) keys.push(`${value('field')}.${option.split(':')[1] || option.split(':')[0]}`);
  }
  return keys;
}

describe('editor languages', () => {
  it('has an en-US catalog and help page for every node type', () => {
    for (const type of nodeTypes) {
      assert.ok(existsSync(join(root, 'locales', 'en-US', `${type}.json`)), `locales/en-US/${type}.json`);
      assert.ok(existsSync(join(root, 'locales', 'en-US', `${type}.html`)), `locales/en-US/${type}.html`);
    }
  });

  for (const lang of TRANSLATIONS) {
    it(`${lang}: every en-US key is translated, with the same placeholders, and nothing extra`, () => {
      const missing: string[] = [];
      const extra: string[] = [];
      const wrongPlaceholders: string[] = [];
      const untranslated: string[] = [];
      for (const type of nodeTypes) {
        const english = flatten(catalogOf('en-US', type));
        const file = join(root, 'locales', lang, `${type}.json`);
        if (!existsSync(file)) {
          missing.push(`${type} (no locales/${lang}/${type}.json)`);
          continue;
        }
        const translated = flatten(catalogOf(lang, type));
        for (const [key, text] of english) {
          const other = translated.get(key);
          if (other === undefined || other.trim() === '') {
            missing.push(`${type}.${key}`);
            continue;
          }
          if (placeholders(other).join() !== placeholders(text).join()) wrongPlaceholders.push(`${type}.${key}: ${other}`);
          if (other === text && !mayEqualEnglish(lang, key) && /[a-z]{3}/.test(text)) untranslated.push(`${type}.${key}: ${text}`);
        }
        for (const key of translated.keys()) if (!english.has(key)) extra.push(`${type}.${key}`);
      }
      assert.deepEqual(missing, [], `keys of en-US missing in ${lang}: add their translations to locales/${lang}/`);
      assert.deepEqual(wrongPlaceholders, [], `${lang} texts whose __placeholders__ differ from en-US`);
      assert.deepEqual(untranslated, [], `${lang} texts still in English (or list the key in SAME_AS_ENGLISH)`);
      assert.deepEqual(extra, [], `${lang} keys that en-US no longer has`);
    });

    it(`${lang}: every node has a translated help page with the same sections`, () => {
      for (const type of nodeTypes) {
        const file = join(root, 'locales', lang, `${type}.html`);
        assert.ok(existsSync(file), `locales/${lang}/${type}.html exists`);
        const html = readFileSync(file, 'utf8');
        assert.match(html, new RegExp(`^<script type="text/html" data-help-name="${type}">`), `${lang}/${type}.html is a help script`);
        const english = readFileSync(join(root, 'locales', 'en-US', `${type}.html`), 'utf8');
        const count = (text: string, tag: string) => (text.match(new RegExp(`<${tag}[ >]`, 'g')) ?? []).length;
        assert.equal(count(html, 'h3'), count(english, 'h3'), `${lang}/${type}.html has the sections of en-US`);
        assert.equal(count(html, 'dt'), count(english, 'dt'), `${lang}/${type}.html describes the properties of en-US`);
        assert.notEqual(helpText(lang, type), helpText('en-US', type), `${lang}/${type}.html is translated`);
      }
    });
  }

  it('every catalog key the templates and node files use exists in en-US', () => {
    const unknown: string[] = [];
    for (const type of nodeTypes) {
      const english = flatten(catalogOf('en-US', type));
      const sources = readdirSync(join(root, 'nodes', type))
        .filter((file) => file.endsWith('.html') || file.endsWith('.ts'))
        .map((file) => readFileSync(join(root, 'nodes', type, file), 'utf8'))
        .join('\n');
      // Literal keys: data-i18n="type.key", "[placeholder]type.key", and _("type.key") / t("key") calls;
      // and the keys of the rows the shared form code writes from a template's data- attributes.
      const keys = new Set<string>();
      for (const match of sources.matchAll(new RegExp(`(?:\\]|"|'|\`)${type}\\.([A-Za-z0-9.]+)(?="|'|\`)`, 'g'))) keys.add(match[1]!);
      for (const match of sources.matchAll(/\bt\((?:"|')([A-Za-z0-9]+\.[A-Za-z0-9.]+)(?:"|')/g)) keys.add(match[1]!);
      for (const key of sharedRowKeys(sources)) keys.add(key);
      for (const key of keys) {
        // Icon files and admin permissions share the type's prefix but are not catalog keys.
        if (key.endsWith('.') || key === 'svg' || key === 'write' || key === 'read') continue;
        // i18next plurals: the code asks for `key`, the catalog has key_one and key_other.
        const known = english.has(key) || english.has(`${key}_other`) || [...english.keys()].some((k) => k.startsWith(`${key}.`));
        if (!known) unknown.push(`${type}.${key}`);
      }
    }
    assert.deepEqual(unknown, [], 'catalog keys used but not in locales/en-US');
  });
});
