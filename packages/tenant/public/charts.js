// Inline SVG charts. Marks are focusable and clickable (that is the drilldown gesture); colors come
// from CSS classes so the theme and the color scheme restyle them without a re-render. A point's key
// is shown through `keyLabel` (a status code becomes its translated name); `keyIsData` marks labels
// that are data (a region, an account) translate="no".
//
// For assistive technology a chart is a named group of marks, each a button named with its key and its
// exact value ("EMEA: $3,822,882"). The texts drawn beside the marks (axis labels, short values such as
// "$3.8M") say the same again, so they are hidden from it and let the pointer through to the mark under
// them: a mark holds no visible text that its name would have to repeat word for word.
import { h, s } from './dom.js';

/** A mark: a button when `onPick` is given (the drilldown), else a named image of one data point. */
const markAttrs = (label, onPick, data) => ({
  ...(onPick
    ? {
        tabindex: 0,
        role: 'button',
        onclick: onPick,
        onkeydown: (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            onPick();
          }
        },
      }
    : { role: 'img' }),
  'aria-label': label,
  class: onPick ? 'mark' : 'mark static',
  translate: data ? 'no' : undefined,
});

/** A text drawn beside the marks: seen, not read out (the marks' names hold it), never in the pointer's way. */
const label = (attrs, text) => s('text', { ...attrs, 'aria-hidden': 'true' }, text);

/** Rounds up to 1, 2, 2.5 or 5 times a power of ten, so axis ticks read as round numbers. */
function niceCeil(v) {
  const mag = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 3, 4, 6, 8, 10].find((f) => f * mag >= v) ?? 10) * mag;
}

/**
 * Horizontal bars, largest first. A whole row (its label, bar and value) is the mark's to click; without
 * `onPick` the bars are not interactive.
 */
export function barChart(points, { format, label: name, onPick, width = 420, keyLabel = String, keyIsData = true }) {
  const max = Math.max(1, ...points.map((p) => p.value));
  const rowH = 30;
  const W = Math.max(220, width);
  const labelW = Math.min(118, Math.round(W * 0.36));
  const valueW = 64;
  const barW = W - labelW - valueW;
  return s(
    'svg',
    { viewBox: `0 0 ${W} ${points.length * rowH + 4}`, class: 'chart bar', role: 'group', 'aria-label': name },
    points.map((p, i) => {
      const y = i * rowH + 4;
      const w = Math.max(2, (p.value / max) * barW);
      const key = keyLabel(p.key);
      return s(
        'g',
        { translate: keyIsData ? 'no' : undefined },
        s(
          'g',
          markAttrs(`${key}: ${format(p.value)}`, onPick && (() => onPick(p)), keyIsData),
          s('title', {}, `${key}: ${format(p.value)}`),
          s('rect', { x: 0, y, width: W, height: rowH, rx: 6, class: 'hit' }),
          s('rect', { x: labelW, y: y + 4, width: barW, height: rowH - 12, rx: 4, class: 'track' }),
          s('rect', { x: labelW, y: y + 4, width: w.toFixed(1), height: rowH - 12, rx: 4, class: 'fill s0' }),
        ),
        label(
          { x: labelW - 10, y: y + rowH / 2, class: 'axis', 'text-anchor': 'end', 'dominant-baseline': 'middle' },
          key,
        ),
        label(
          { x: labelW + w + 8, y: y + rowH / 2, class: 'value', 'dominant-baseline': 'middle' },
          format(p.value, true),
        ),
      );
    }),
  );
}

/** A line over time with an area under it; each point is a mark. */
export function lineChart(points, { format, xLabel, label: name, onPick, width = 640 }) {
  const W = Math.max(280, width);
  const H = 210;
  const pad = { l: 56, r: 16, t: 14, b: 28 };
  const max = niceCeil(Math.max(1, ...points.map((p) => p.value)) * 1.05);
  const x = (i) => pad.l + (points.length < 2 ? 0 : (i / (points.length - 1)) * (W - pad.l - pad.r));
  const y = (v) => pad.t + (1 - v / max) * (H - pad.t - pad.b);
  const line = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join('');
  const area = points.length ? `${line}L${x(points.length - 1).toFixed(1)},${y(0)}L${x(0).toFixed(1)},${y(0)}Z` : '';
  const ticks = [0, 0.5, 1].map((f) => f * max);
  return s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'chart line', role: 'group', 'aria-label': name },
    ticks.map((v) =>
      s(
        'g',
        {},
        s('line', { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: 'grid' }),
        label(
          { x: pad.l - 8, y: y(v), class: 'axis', 'text-anchor': 'end', 'dominant-baseline': 'middle' },
          format(v, true),
        ),
      ),
    ),
    s('path', { d: area, class: 'area s0' }),
    s('path', { d: line, class: 'stroke s0' }),
    points.map((p, i) =>
      s(
        'g',
        {},
        s(
          'g',
          markAttrs(`${xLabel(p.key)}: ${format(p.value)}`, onPick && (() => onPick(p))),
          s('title', {}, `${xLabel(p.key)}: ${format(p.value)}`),
          s('circle', { cx: x(i), cy: y(p.value), r: 12, class: 'hit' }),
          s('circle', { cx: x(i), cy: y(p.value), r: 4, class: 'dot s0' }),
        ),
        label({ x: x(i), y: H - 8, class: 'axis', 'text-anchor': 'middle' }, xLabel(p.key)),
      ),
    ),
  );
}

/** A donut with an HTML legend; slices and legend entries are marks. */
export function donutChart(points, { format, label, onPick, keyLabel = String, keyIsData = true }) {
  const total = points.reduce((a, p) => a + p.value, 0) || 1;
  const R = 64;
  const r = 40;
  const C = 80;
  let angle = -Math.PI / 2;
  const slices = points.map((p, i) => {
    const sweep = Math.min((p.value / total) * Math.PI * 2, Math.PI * 2 - 1e-4);
    const a0 = angle;
    const a1 = angle + sweep;
    angle = a1;
    const large = sweep > Math.PI ? 1 : 0;
    const pt = (rad, a) => `${(C + rad * Math.cos(a)).toFixed(2)},${(C + rad * Math.sin(a)).toFixed(2)}`;
    const d = `M${pt(R, a0)}A${R},${R} 0 ${large} 1 ${pt(R, a1)}L${pt(r, a1)}A${r},${r} 0 ${large} 0 ${pt(r, a0)}Z`;
    const pct = Math.round((p.value / total) * 100);
    const key = keyLabel(p.key);
    return s(
      'path',
      {
        d,
        ...markAttrs(`${key}: ${format(p.value)} (${pct}%)`, onPick && (() => onPick(p)), keyIsData),
        class: `mark slice s${i % 6}`,
      },
      s('title', {}, `${key}: ${format(p.value)} (${pct}%)`),
    );
  });
  return h(
    'div',
    { class: 'donut' },
    s(
      'svg',
      { viewBox: '0 0 160 160', class: 'chart', role: 'group', 'aria-label': label },
      slices,
      s(
        'text',
        { x: C, y: C, class: 'donut-total', 'text-anchor': 'middle', 'dominant-baseline': 'middle' },
        format(total, true),
      ),
    ),
    h(
      'ul',
      { class: 'legend' },
      points.map((p, i) =>
        h(
          'li',
          {},
          h(
            'button',
            { type: 'button', class: 'legend-item', onclick: () => onPick(p) },
            h('span', { class: `swatch s${i % 6}` }),
            h('span', { class: 'legend-key', translate: keyIsData ? 'no' : undefined }, keyLabel(p.key)),
            h('span', { class: 'legend-value' }, format(p.value, true)),
          ),
        ),
      ),
    ),
  );
}
