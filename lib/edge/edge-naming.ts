/**
 * How a hub names an edge's tools, and which naming patterns it accepts. A pattern is accepted only
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

export function hubToolName(naming: string, site: string, tool: string): string {
  return naming.replace(SITE, site).replace(TOOL, tool);
}

/** Why `naming` cannot name edge tools on a hub, or undefined when it can. */
export function namingProblem(naming: string): string | undefined {
  if (naming.length > 64) return 'it is longer than 64 characters';
  if (occurrences(naming, SITE) !== 1 || occurrences(naming, TOOL) !== 1) return 'it must contain {site} and {tool} once each';
  const site = naming.indexOf(SITE);
  const tool = naming.indexOf(TOOL);
  const between = site < tool ? naming.slice(site + SITE.length, tool) : naming.slice(tool + TOOL.length, site);
  if ([...between].some((character) => !SITE_CHARACTER.test(character))) return undefined;
  if (between === '') return 'it needs a separator between {site} and {tool}';
  return `the text between {site} and {tool} (${JSON.stringify(between)}) could be part of a site name`;
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}
