// Prints the top self and total entries of .cpuprofile files: node scripts/bench/cpu-profile-top.js <file...> [--top N]
// Self: samples in the function itself; total: samples with the function anywhere on the stack (counted once per sample).
const { readFileSync } = require('node:fs');
const { relative } = require('node:path');
const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 25;
const root = process.cwd();
const label = (f) => {
  const url = f.url.replace(/^file:\/\//, '');
  const where = url
    ? `${url.includes('node_modules') ? url.slice(url.lastIndexOf('node_modules/') + 13) : relative(root, url)}:${f.lineNumber + 1}`
    : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
for (const file of args) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const counts = new Map();
  for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const self = new Map();
  const total = new Map();
  let all = 0;
  let idle = 0;
  for (const [id, count] of counts) {
    const node = byId.get(id);
    const name = node.callFrame.functionName;
    if (name === '(idle)') {
      idle += count;
      continue;
    }
    all += count;
    const key = label(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + count);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = label(byId.get(at).callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + count);
    }
  }
  const pct = (n) => `${((100 * n) / all).toFixed(1).padStart(5)}%`;
  console.log(`\n## ${file}: ${all} busy samples (${idle} idle), ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s`);
  console.log('self:');
  for (const [k, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(n)}  ${k}`);
  console.log('total:');
  for (const [k, n] of [...total].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(n)}  ${k}`);
}
