import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The languages the palette ships (locales/<language>/); the first is the fallback. */
export const PAGE_LANGUAGES = ['en-US', 'de', 'ja'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

/** Why the authorization endpoint could not tell which client is asking, or where it may send the browser. */
export type ClientProblem = 'request' | 'unknownClient' | 'clientRefused' | 'redirectRefused' | 'unavailable';

export interface ClientProblemText {
  readonly heading: string;
  readonly message: string;
}

/** The words of the pages the bridge shows in the browser, in one language (catalog key `signInPage`). */
export interface SignInPageTexts {
  readonly problems: Readonly<Record<ClientProblem, ClientProblemText>>;
  /** Closes every client problem page: nothing was sent back, what to do now. */
  readonly notSent: string;
  readonly detailsLabel: string;
  readonly clientLabel: string;
}

export type SignInPageCatalog = Readonly<Record<PageLanguage, SignInPageTexts>>;

const PROBLEMS: readonly ClientProblem[] = ['request', 'unknownClient', 'clientRefused', 'redirectRefused', 'unavailable'];

/**
 * The `signInPage` texts of `<localesDir>/<language>/mcp-auth.json` for every shipped language: the
 * same catalogs the editor shows, so a page is translated where the dialogs are. A missing or
 * incomplete catalog throws at load (a build fault), rather than a page showing a key name later.
 */
export function loadSignInPageTexts(localesDir: string): SignInPageCatalog {
  const entries = PAGE_LANGUAGES.map((language) => {
    const catalog = JSON.parse(readFileSync(join(localesDir, language, 'mcp-auth.json'), 'utf8')) as { 'mcp-auth'?: { signInPage?: unknown } };
    return [language, checkedTexts(catalog['mcp-auth']?.signInPage, language)] as const;
  });
  return Object.freeze(Object.fromEntries(entries)) as SignInPageCatalog;
}

function checkedTexts(value: unknown, language: string): SignInPageTexts {
  const texts = value as Partial<SignInPageTexts> | undefined;
  const strings = [texts?.notSent, texts?.detailsLabel, texts?.clientLabel, ...PROBLEMS.flatMap((problem) => [texts?.problems?.[problem]?.heading, texts?.problems?.[problem]?.message])];
  if (!strings.every((text) => typeof text === 'string' && text !== '')) {
    throw new Error(`locales/${language}/mcp-auth.json: signInPage is incomplete`);
  }
  return texts as SignInPageTexts;
}

/**
 * The shipped language the browser prefers most (Accept-Language, RFC 9110 §12.5.4): a range matches
 * a language exactly or by its primary subtag (`de-AT` finds `de`, `en-GB` finds `en-US`); none, or
 * only `*`, gives the fallback.
 */
export function pickPageLanguage(acceptLanguage: string | undefined): PageLanguage {
  const ranges = (acceptLanguage ?? '')
    .split(',')
    .map((part, order) => {
      const [range = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(param)?.[1]).find((found) => found !== undefined);
      return { range: range.trim().toLowerCase(), quality: q === undefined ? 1 : Number(q), order };
    })
    .filter((entry) => entry.range !== '' && entry.quality > 0 && Number.isFinite(entry.quality))
    .sort((a, b) => b.quality - a.quality || a.order - b.order);
  for (const { range } of ranges) {
    const primary = range.split('-')[0];
    const found = PAGE_LANGUAGES.find((language) => language.toLowerCase() === range) ?? PAGE_LANGUAGES.find((language) => language.toLowerCase().split('-')[0] === primary);
    if (found) return found;
  }
  return PAGE_LANGUAGES[0];
}
