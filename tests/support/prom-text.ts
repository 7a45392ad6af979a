/** The value of one sample line of Prometheus text with exactly these labels, or undefined when the series is absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    if ((m[2] ?? '').split(',').filter(Boolean).sort().join(',') === want) return Number(m[3]);
  }
  return undefined;
}
