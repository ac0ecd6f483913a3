// Summarizes a V8 .cpuprofile (from BENCH_CPU_PROF): where the time went, by package and by
// function, self and inclusive. Usage: node bench/profile-summary.mjs <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

// Self time per node from the sample stream (more exact than hitCount × mean interval).
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i += 1) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** Which package a frame belongs to, from its script URL. */
function packageOf(url) {
  if (!url) return '(native/VM)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const parts = url.split('/node_modules/');
  if (parts.length > 1) {
    const tail = parts[parts.length - 1].split('/');
    const name = tail[0].startsWith('@') ? `${tail[0]}/${tail[1]}` : tail[0];
    if (name === '@flowmcp/node-red-mcp') return `this package (${tail.slice(2, 4).join('/')})`;
    return name;
  }
  if (url.includes('/bench/')) return 'bench';
  return url.replace(/^file:\/\//, '');
}

const frameKey = (node) => {
  const f = node.callFrame;
  const name = f.functionName || '(anonymous)';
  return `${name}  ${packageOf(f.url)}:${f.lineNumber + 1}`;
};

const selfByPackage = new Map();
const selfByFunction = new Map();
const inclusiveByFunction = new Map();
const inclusiveByPackage = new Map();

// Inclusive time: walk the tree once; a key on the stack several times counts once.
function walk(node, keysOnStack, packagesOnStack) {
  const key = frameKey(node);
  const pkg = packageOf(node.callFrame.url);
  let subtotal = selfUs.get(node.id) ?? 0;
  const addKey = !keysOnStack.has(key);
  const addPkg = !packagesOnStack.has(pkg);
  if (addKey) keysOnStack.add(key);
  if (addPkg) packagesOnStack.add(pkg);
  for (const childId of node.children ?? []) subtotal += walk(byId.get(childId), keysOnStack, packagesOnStack);
  if (addKey) {
    keysOnStack.delete(key);
    inclusiveByFunction.set(key, (inclusiveByFunction.get(key) ?? 0) + subtotal);
  }
  if (addPkg) {
    packagesOnStack.delete(pkg);
    inclusiveByPackage.set(pkg, (inclusiveByPackage.get(pkg) ?? 0) + subtotal);
  }
  const self = selfUs.get(node.id) ?? 0;
  selfByPackage.set(pkg, (selfByPackage.get(pkg) ?? 0) + self);
  selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + self);
  return subtotal;
}
walk(byId.get(profile.nodes[0].id), new Set(), new Set());

const percent = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)} %`;
const print = (title, map, n) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${percent(us)}  ${key}`);
};
const idle = [...selfByFunction.entries()].filter(([key]) => key.startsWith('(idle)')).reduce((sum, [, us]) => sum + us, 0);
console.log(`${file}: ${(totalUs / 1e6).toFixed(1)} s sampled, ${((100 * idle) / totalUs).toFixed(1)} % idle`);
print('self time by package', selfByPackage, top);
print('inclusive time by package (on the stack)', inclusiveByPackage, top);
print('self time by function', selfByFunction, top);
print('inclusive time by function', inclusiveByFunction, top);
