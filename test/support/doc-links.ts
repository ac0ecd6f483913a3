import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

/**
 * Links in the README, docs/ and the editor's help, checked the way GitHub renders them: a relative
 * link must name a file of the repository, and its #anchor a heading (or an explicit id) of that file.
 * Pages are passed in as text, so the checker works the same on the repository and on a small sample.
 */

/** The Markdown pages a reader reads, from the repository root: README.md and every page of docs/. */
export function markdownPages(root: string): string[] {
  return ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
}

/** The anchor GitHub gives a heading: its text lowercased, punctuation dropped, spaces as hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link shows its text
    .replace(/<[^>]+>/g, '') // inline HTML shows nothing of its tags
    .replace(/`/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Markdown lines outside fenced code blocks, with their line numbers (1-based). */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (opener && (!fence || opener.startsWith(fence))) {
      fence = fence ? undefined : opener;
      return;
    }
    if (!fence) out.push({ line: index + 1, text });
  });
  return out;
}

/** Every anchor a Markdown page offers: its headings' slugs (GitHub numbers repeats -1, -2, …) and explicit ids. */
export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading !== undefined) {
      const slug = githubSlug(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  }
  return anchors;
}

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** The link targets of a Markdown page: inline links and images, reference definitions, HTML hrefs; not in code. */
export function markdownLinks(markdown: string): Link[] {
  const links: Link[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, '');
    for (const [, target] of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: target! });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose)?.[1];
    if (definition) links.push({ line, target: definition });
    for (const [, target] of prose.matchAll(/\bhref="([^"]*)"/g)) links.push({ line, target: target! });
  }
  return links;
}

/** The href targets of an HTML page (the editor's help), with their line numbers. */
export function htmlLinks(html: string): Link[] {
  return html.split('\n').flatMap((text, index) => [...text.matchAll(/\bhref="([^"]*)"/g)].map(([, target]) => ({ line: index + 1, target: target! })));
}

export interface Pages {
  /** The text of a repository file by its path from the root ('docs/tasks.md'), or undefined when there is none. */
  read(path: string): string | undefined;
}

/** The files under `dir` as the checker reads them (a folder exists, with no text of its own). */
export function filePages(dir: string): Pages {
  return {
    read(path) {
      const file = join(dir, path);
      if (!existsSync(file)) return undefined;
      return statSync(file).isDirectory() ? '' : readFileSync(file, 'utf8');
    },
  };
}

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

/**
 * What is wrong with one link of the page at `from` (a path from the repository root), or undefined.
 * `repository` is the package's GitHub address (https://github.com/owner/name), when it has one: links
 * into it are checked like relative ones.
 */
export function linkProblem(pages: Pages, from: string, target: string, repository?: string): string | undefined {
  let path: string;
  const inRepository = repository ? new RegExp(`^${repository.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:blob|tree)/[^/]+/([^#?]*)`).exec(target) : null;
  if (inRepository) {
    path = decodeURIComponent(inRepository[1]!);
  } else if (ABSOLUTE.test(target) || target.startsWith('//')) {
    return undefined; // another site: not ours to check
  } else if (target.startsWith('/')) {
    return 'a link from the root of the site breaks wherever the page is shown other than on GitHub; link relatively';
  } else {
    const file = target.split(/[?#]/)[0]!;
    path = file === '' ? from : posix.normalize(posix.join(posix.dirname(from), decodeURIComponent(file)));
  }
  const anchor = target.includes('#') ? decodeURIComponent(target.slice(target.indexOf('#') + 1)) : '';
  path = path.replace(/\/$/, '');
  if (path.startsWith('..')) return `${target} leaves the repository`;
  const text = pages.read(path);
  if (text === undefined) return `${target}: there is no file ${path}`;
  if (!anchor) return undefined;
  if (!path.endsWith('.md')) return `${target}: an anchor into ${path}, which is not a Markdown page`;
  return markdownAnchors(text).has(anchor) ? undefined : `${target}: ${path} has no heading or id "${anchor}"`;
}

/** The problems of every link of a Markdown page, one line each ("docs/x.md:12: …"). */
export function markdownLinkProblems(pages: Pages, from: string, repository?: string): string[] {
  return markdownLinks(pages.read(from) ?? '').flatMap(({ line, target }) => {
    const problem = linkProblem(pages, from, target, repository);
    return problem ? [`${from}:${line}: ${problem}`] : [];
  });
}

/**
 * The problems of every link of an editor help page. The editor shows the help inside its own page, so
 * a relative link would resolve against the editor's address: the help links only to absolute URLs,
 * and those into the package's repository must resolve.
 */
export function helpLinkProblems(pages: Pages, from: string, repository?: string): string[] {
  return htmlLinks(pages.read(from) ?? '').flatMap(({ line, target }) => {
    if (!ABSOLUTE.test(target)) return [`${from}:${line}: ${target} is relative, and the editor would resolve it against its own address`];
    const problem = linkProblem(pages, from, target, repository);
    return problem ? [`${from}:${line}: ${problem}`] : [];
  });
}
