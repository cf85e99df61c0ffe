// Reads a V8 .cpuprofile (node --cpu-prof) and sums self time per function and per package, so a
// run's profile can be read in the terminal and quoted in docs/performance.md.
import { readFileSync } from 'node:fs';

const packageOf = (url) => {
  if (!url) return '(native)';
  const m = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node';
  return url.includes('/dist/') ? 'relay' : url;
};

export function summarizeProfile(file, top = 15) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map();
  const pkgs = new Map();
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const name = `${callFrame.functionName || '(anonymous)'} ${packageOf(callFrame.url)}:${callFrame.lineNumber + 1}`;
    fns.set(name, (fns.get(name) ?? 0) + us);
    const pkg = callFrame.url ? packageOf(callFrame.url) : callFrame.functionName || '(native)';
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  }
  const pct = (us) => Math.round((us / total) * 1000) / 10;
  const rank = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfPercent: pct(us) }));
  return { totalMs: Math.round(total / 1000), functions: rank(fns), packages: rank(pkgs) };
}
