// The bench's one table, in Markdown (ready for bench/README.md, "The last full run"). A goal is on the ratio of
// its own row, against that row's floor; a row without one is there to show where the time goes.

const num = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));
const span = (s, unit) => `${num(s.median)} ${unit} (${num(s.min)}–${num(s.max)})`;
const ratio = (s) => `**${s.median.toFixed(2)}×** (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
const bytes = (n) => `${n.toLocaleString('en')} B`;
const mark = (ok) => (ok === undefined ? '' : ok ? ' ✅' : ' ❌');

function timingRow(r) {
  if (!r.value) return `| ${r.figure} | ${r.note ?? ''} | | | ${r.ok === undefined ? '' : r.ok ? '✅' : '❌'} |`;
  // A goal that is not a ratio to write as one (the peak RSS's: the raw loop's own) says what it is in words.
  const goal = r.goal === undefined ? '—' : `${r.goalText ?? `≤ ${r.goal.toFixed(2)}×`}${mark(r.ok)}`;
  const figure = r.note ? `${r.figure}; ${r.note}` : r.figure;
  return `| ${figure} | ${span(r.value, r.unit)} | ${span(r.floor, r.unit)} | ${ratio(r.ratio)} | ${goal} |`;
}

function sizeRows(sizes) {
  if (!sizes) return [];
  const { floor } = sizes;
  const lines = sizes.bundles.map(
    (b) =>
      `| \`${b.name}\`, gzip -9 / brotli | ${bytes(b.gzip)} / ${bytes(b.brotli)} | ${bytes(floor.gzip)} / ${bytes(floor.brotli)} | ` +
      `**${(b.gzip / floor.gzip).toFixed(2)}×** / ${(b.brotli / floor.brotli).toFixed(2)}× | no regression |`,
  );
  for (const p of sizes.peers) {
    const what = `${p.name} \`${p.pkg}\` \`${p.file}\`${p.note ? ` (${p.note})` : ''}, gzip -9 / brotli`;
    lines.push(
      p.error
        ? `| ${what} | not measured: ${p.error} | | | |`
        : `| ${what} | ${bytes(p.gzip)} / ${bytes(p.brotli)} | | | peer |`,
    );
  }
  return lines;
}

export function table(result) {
  const m = result.machine;
  const browsers = Object.entries(m.browsers)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `${result.mode} run of ${result.date.slice(0, 16).replace('T', ' ')} UTC, ${result.durationS} s: ${m.cpu}, ${m.cores} cores` +
      `${m.loadAverage ? ` (load average ${m.loadAverage.start[0].toFixed(1)} at the start, ${m.loadAverage.end[0].toFixed(1)} at the end)` : ''}, Node ${m.node}${browsers ? `, ${browsers}` : ''}`,
    '',
    '| figure | svc-embed, median (min–max) | floor, median (min–max) | ratio, median (min–max) of pairs | goal |',
    '|---|---|---|---|---|',
    ...result.rows.map(timingRow),
    ...sizeRows(result.sizes),
    '',
  ].join('\n');
}
