// bench/lib/chart.ts: the SVG it renders has every series, label and bar it was given.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { groupedBarChartSvg, lineChartSvg } from '../../bench/lib/chart.ts';

/** The text of every <text> element, unescaped enough for these labels. */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));

/** The shapes drawn by each mark group of a kind (one <path> per line, per bar, per rule). */
const shapes = (svg: string, mark: string) =>
  [...svg.matchAll(new RegExp(`<g class="mark-${mark} role-mark"[^>]*?(?:/>|>(.*?)</g>)`, 'g'))].map((match) => (match[1]?.match(/<(path|line)\b/g) ?? []).length);

test('a line chart has each series on its axis, the axis titles and every marked moment', async () => {
  const points = (f: (x: number) => number) => Array.from({ length: 30 }, (_, x) => ({ x, y: f(x) }));
  const svg = await lineChartSvg({
    title: 'Soak: memory and load',
    xTitle: 'seconds since start',
    left: { title: 'RSS, MiB', series: [{ name: 'RSS', points: points((x) => 120 + x) }] },
    right: { title: 'requests per second', series: [{ name: 'req/s', points: points((x) => 400 - x) }, { name: 'writes/s', points: points(() => 50) }] },
    markers: [
      { x: 10, label: 'kill 1' },
      { x: 22, label: 'kill 2' },
    ],
  });
  assert.ok(svg.startsWith('<svg'), 'an SVG document');
  const labels = texts(svg);
  for (const label of ['Soak: memory and load', 'seconds since start', 'RSS, MiB', 'requests per second', 'RSS', 'req/s', 'writes/s', 'kill 1', 'kill 2']) {
    assert.ok(labels.includes(label), `the chart shows "${label}" (has: ${labels.join(' | ')})`);
  }
  assert.equal(shapes(svg, 'line').reduce((a, b) => a + b, 0), 3, 'one line per series');
  assert.equal(shapes(svg, 'rule'), [2], 'one rule per marked moment');
});

test('a line chart without a right axis or markers draws the left series alone', async () => {
  const svg = await lineChartSvg({ title: 'one', xTitle: 's', left: { title: 'MiB', series: [{ name: 'RSS', points: [{ x: 0, y: 1 }, { x: 1, y: 2 }] }] } });
  const labels = texts(svg);
  assert.ok(labels.includes('RSS') && labels.includes('MiB'));
  assert.equal(shapes(svg, 'line'), [1]);
  assert.equal(shapes(svg, 'rule'), [0]);
});

test('a grouped bar chart has a row per category, a bar per known figure and a panel per measure', async () => {
  const categories = ['REST search, the same query repeated', 'gRPC SearchEvents', 'REST manipulate-event on a branch'];
  const svg = await groupedBarChartSvg({
    title: 'req/s and p99 per path, bare next to tms',
    categories,
    groups: ['tms', 'bare'],
    panels: [
      {
        title: 'req/s',
        bars: [
          { category: categories[0]!, group: 'tms', value: 9100 },
          { category: categories[0]!, group: 'bare', value: 30000 },
          { category: categories[1]!, group: 'tms', value: 4200 },
          { category: categories[1]!, group: 'bare', value: 12000 },
          { category: categories[2]!, group: 'tms', value: 1700 },
        ],
      },
      {
        title: 'p99 ms',
        bars: [
          { category: categories[0]!, group: 'tms', value: 12.5 },
          { category: categories[1]!, group: 'tms', value: 20 },
          { category: categories[1]!, group: 'bare', value: Number.NaN },
        ],
      },
    ],
  });
  const labels = texts(svg);
  for (const label of ['req/s and p99 per path, bare next to tms', 'req/s', 'p99 ms', 'tms', 'bare', ...categories, '9,100', '30,000', '12.5']) {
    assert.ok(labels.includes(label), `the chart shows "${label}" (has: ${labels.join(' | ')})`);
  }
  // A rect mark per category row and panel; a NaN figure draws nothing.
  assert.is(shapes(svg, 'rect').reduce((a, b) => a + b, 0), 5 + 2, 'one bar per finite figure');
});

test.run();
