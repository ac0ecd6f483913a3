import assert from 'node:assert/strict';

/** What the bridge's page for an unverifiable client says, read back the way a person sees it. */
export interface ProblemPage {
  readonly status: number;
  /** `lang` of the page and its Content-Language. */
  readonly language: string;
  readonly heading: string;
  /** The OAuth error and its description, in the page's line for the administrator. */
  readonly error: string;
  readonly description: string;
  readonly text: string;
}

const ENTITY = /&#(\d+);/g;

/**
 * Reads the authorization endpoint's answer for a client it could not verify and checks what every
 * such answer must be: an HTML page, shown where the browser is (no Location), no sign-in started
 * (no cookie), nothing a script could run.
 */
export async function readProblemPage(response: Response): Promise<ProblemPage> {
  const html = await response.text();
  assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  assert.equal(response.headers.get('location'), null, 'no redirect');
  assert.equal(response.headers.get('set-cookie'), null, 'no sign-in started');
  assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assert.doesNotMatch(html, /<script/i);
  const language = /<html lang="([^"]+)">/.exec(html)?.[1] ?? '';
  assert.equal(response.headers.get('content-language'), language);
  const decode = (value: string) => value.replace(ENTITY, (_, code: string) => String.fromCharCode(Number(code)));
  const heading = decode(/<h1 id="consent-title">([^<]*)<\/h1>/.exec(html)?.[1] ?? '');
  const details = /<p class="note">[^<]*<code>([^<]+)<\/code>: ([^<]*)<\/p>\n<\/main>/.exec(html);
  assert.ok(heading && details, `expected the client problem page, got: ${html.slice(0, 400)}`);
  const text = decode(html.replace(/<style>[\s\S]*?<\/style>/, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '));
  return { status: response.status, language, heading, error: decode(details[1]!), description: decode(details[2]!), text };
}
