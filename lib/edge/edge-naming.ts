/**
 * How a hub names an edge's tools and prompts (`{site}` and `{tool}`) and its resources (`{site}` and
 * `{uri}`), and which naming patterns it accepts. A pattern is accepted only
 * when no two (site, tool) pairs can give one hub name: otherwise a stolen edge could announce a tool
 * whose hub name is another site's (with `{site}-{tool}`, site `plant` announcing `a-open_valve`
 * gives `plant-a-open_valve`, the name of site `plant-a`'s `open_valve`), and the hub would have to
 * pick one by list order (handing the other site's tool over) or serve neither (denying it).
 *
 * The rule: `{site}` and `{tool}` appear once each, and the text between them holds at least one
 * character a site name cannot contain (anything but `a–z`, `0–9` and `-`, such as `.` or `_`). The
 * site name is then the run of site characters next to the fixed text around it, so a hub name gives
 * back its site, and with it its tool: two sites never share a hub name. Without such a character
 * (`{site}-{tool}`, `{site}{tool}`) two sites always can.
 */

/** Characters a site name may contain (SITE_PATTERN's alphabet). */
const SITE_CHARACTER = /^[a-z0-9-]$/;
const SITE = '{site}';
const TOOL = '{tool}';
const URI = '{uri}';
/** Edge resources read `edge://<site>/<their own URI>` on a hub unless the endpoint says otherwise. */
export const DEFAULT_EDGE_URI_NAMING = 'edge://{site}/{uri}';
/** An absolute URI (scheme, colon, no spaces), as resource URIs are checked (uri-template.ts). */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s{}]+$/;

export function hubToolName(naming: string, site: string, tool: string): string {
  return naming.replace(SITE, site).replace(TOOL, () => tool);
}

/** A resource's URI (or template) on the hub. The replacer function keeps `$` in a URI literal. */
export function hubUri(naming: string, site: string, uri: string): string {
  return naming.replace(SITE, site).replace(URI, () => uri);
}

/**
 * The edge's own URI inside a hub URI of `site`, or undefined when `hubUri` is not one of its: the
 * fixed text around `{uri}` taken off, which naming checked to be unambiguous.
 */
export function edgeUri(naming: string, site: string, uri: string): string | undefined {
  const [before, after] = hubUri(naming, site, URI).split(URI) as [string, string];
  if (uri.length < before.length + after.length || !uri.startsWith(before) || !uri.endsWith(after)) return undefined;
  return uri.slice(before.length, uri.length - after.length);
}

/** Why `naming` cannot name edge tools (and prompts) on a hub, or undefined when it can. */
export function namingProblem(naming: string): string | undefined {
  return patternProblem(naming, TOOL);
}

/**
 * Why `naming` cannot name edge resources on a hub, or undefined when it can: as for tools, and the
 * result must still be an absolute URI for every site (a scheme of its own before `{site}`, or `{uri}` first).
 */
export function uriNamingProblem(naming: string): string | undefined {
  const problem = patternProblem(naming, URI, 128);
  if (problem) return problem;
  // For every site: one starting with a digit too, so `{site}` cannot begin the scheme.
  const gives = (site: string) => ABSOLUTE_URI.test(hubUri(naming, site, 'plant://line-1/status'));
  if (!gives('plant-a') || !gives('0-a')) return 'it must give an absolute URI for every site, such as edge://{site}/{uri}';
  return undefined;
}

function patternProblem(naming: string, item: string, maxLength = 64): string | undefined {
  if (naming.length > maxLength) return `it is longer than ${maxLength} characters`;
  if (occurrences(naming, SITE) !== 1 || occurrences(naming, item) !== 1) return `it must contain {site} and ${item} once each`;
  const site = naming.indexOf(SITE);
  const other = naming.indexOf(item);
  const between = site < other ? naming.slice(site + SITE.length, other) : naming.slice(other + item.length, site);
  if ([...between].some((character) => !SITE_CHARACTER.test(character))) return undefined;
  if (between === '') return `it needs a separator between {site} and ${item}`;
  return `the text between {site} and ${item} (${JSON.stringify(between)}) could be part of a site name`;
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}
