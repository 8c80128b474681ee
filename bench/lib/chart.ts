// SVG charts for the bench reports, drawn by Vega (a Vega spec rendered headlessly: `View.toSVG()` needs no
// browser and no canvas). Two shapes: lines over time with up to two y axes and marked moments (the soak's
// RSS and req/s with its kills), and horizontal bars grouped per category in side-by-side panels (req/s and
// p99 per path, tms next to its baseline).
import type { Spec } from 'vega';

export interface Point {
  x: number;
  y: number;
}

export interface Series {
  name: string;
  points: Point[];
}

export interface LineAxis {
  title: string;
  series: Series[];
}

/** A moment drawn as a vertical rule across the plot, labelled at its top. */
export interface Marker {
  x: number;
  label: string;
}

export interface LineChart {
  title: string;
  xTitle: string;
  /** Series read against the left axis (solid lines). A point with a y that is NaN breaks the line. */
  left: LineAxis;
  /** Series read against the right axis (dashed lines), if any. */
  right?: LineAxis;
  markers?: Marker[];
  width?: number;
  height?: number;
}

export interface Bar {
  category: string;
  group: string;
  value: number;
}

export interface BarPanel {
  title: string;
  /** A category with no bar for a group (a figure not measured) leaves its slot empty. */
  bars: Bar[];
}

export interface GroupedBarChart {
  title: string;
  /** The rows, top to bottom, shared by every panel. */
  categories: string[];
  /** The bars within a row, in order; each group keeps one colour across the panels. */
  groups: string[];
  panels: BarPanel[];
  panelWidth?: number;
}

const PALETTE = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#9d755d', '#79706e'];
const MARKER_COLOUR = '#d62728';

async function render(spec: Spec): Promise<string> {
  // Loaded when a chart is drawn: a soak or a bench should not wait for it at start.
  const { parse, View } = await import('vega');
  const view = new View(parse(spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** A point whose y is not a finite number breaks its line there (e.g. while a process restarts). */
const rows = (axis: LineAxis | undefined) =>
  (axis?.series ?? []).flatMap((series) => series.points.map((point) => ({ series: series.name, x: point.x, y: Number.isFinite(point.y) ? point.y : null })));

/** Lines over a shared x axis; a kill, a restart or any other moment can be marked with a labelled rule. */
export function lineChartSvg(chart: LineChart): Promise<string> {
  const width = chart.width ?? 720;
  const height = chart.height ?? 300;
  const names = [...(chart.left.series ?? []), ...(chart.right?.series ?? [])].map((series) => series.name);
  const sides = [{ key: 'left', axis: chart.left, dash: [] as number[] }, ...(chart.right ? [{ key: 'right', axis: chart.right, dash: [6, 3] }] : [])];
  const spec: Spec = {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    width,
    height,
    padding: 8,
    background: 'white',
    title: { text: chart.title, anchor: 'start', fontSize: 14 },
    data: [
      ...sides.map((side) => ({ name: side.key, values: rows(side.axis) })),
      { name: 'markers', values: chart.markers ?? [] },
    ],
    scales: [
      {
        name: 'x',
        type: 'linear',
        domain: { fields: sides.map((side) => ({ data: side.key, field: 'x' })) },
        range: 'width',
        zero: false,
        nice: false,
      },
      ...sides.map((side) => ({
        name: `y_${side.key}`,
        type: 'linear' as const,
        domain: { data: side.key, field: 'y' },
        range: 'height' as const,
        zero: true,
        nice: true,
      })),
      { name: 'colour', type: 'ordinal', domain: names, range: PALETTE },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: chart.xTitle, grid: false },
      ...sides.map((side) => ({
        orient: side.key as 'left' | 'right',
        scale: `y_${side.key}`,
        title: side.axis.title,
        grid: side.key === 'left',
        gridOpacity: 0.3,
      })),
    ],
    legends: [{ stroke: 'colour', orient: 'top', direction: 'horizontal', symbolType: 'stroke', labelLimit: 400 }],
    marks: [
      ...sides.map((side) => ({
        type: 'group' as const,
        from: { facet: { name: `${side.key}_series`, data: side.key, groupby: 'series' } },
        marks: [
          {
            type: 'line' as const,
            from: { data: `${side.key}_series` },
            encode: {
              enter: {
                x: { scale: 'x', field: 'x' },
                y: { scale: `y_${side.key}`, field: 'y' },
                stroke: { scale: 'colour', field: 'series' },
                strokeWidth: { value: 1.8 },
                strokeDash: { value: side.dash },
                defined: { signal: 'datum.y !== null' },
              },
            },
          },
        ],
      })),
      {
        type: 'rule',
        from: { data: 'markers' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'x' },
            y: { value: 0 },
            y2: { signal: 'height' },
            stroke: { value: MARKER_COLOUR },
            strokeWidth: { value: 1.2 },
            strokeDash: { value: [2, 2] },
          },
        },
      },
      {
        type: 'text',
        from: { data: 'markers' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'x', offset: 3 },
            y: { value: 10 },
            text: { field: 'label' },
            fill: { value: MARKER_COLOUR },
            fontSize: { value: 10 },
          },
        },
      },
    ],
  };
  return render(spec);
}

const compact = (value: number) => (value >= 100 ? Math.round(value).toLocaleString('en-US') : value >= 10 ? value.toFixed(1) : value.toFixed(2));

/** Horizontal bars, one row per category and one bar per group within it, in panels side by side. */
export function groupedBarChartSvg(chart: GroupedBarChart): Promise<string> {
  const panelWidth = chart.panelWidth ?? 260;
  const barHeight = 14;
  const rowHeight = barHeight * chart.groups.length + 10;
  const height = Math.max(rowHeight, rowHeight * chart.categories.length);
  const known = new Set(chart.categories);
  const spec: Spec = {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    padding: 8,
    background: 'white',
    title: { text: chart.title, anchor: 'start', fontSize: 14 },
    layout: { columns: chart.panels.length, padding: 40, bounds: 'flush', align: 'each' },
    scales: [{ name: 'colour', type: 'ordinal', domain: chart.groups, range: PALETTE }],
    legends: [{ fill: 'colour', orient: 'top', direction: 'horizontal', labelLimit: 400 }],
    marks: chart.panels.map((panel, index) => {
      const data = `panel_${index}`;
      // Each bar's figure is printed at its end.
      const values = panel.bars.filter((bar) => known.has(bar.category) && Number.isFinite(bar.value)).map((bar) => ({ ...bar, label: compact(bar.value) }));
      return {
        type: 'group' as const,
        title: { text: panel.title, fontSize: 12 },
        encode: { update: { width: { value: panelWidth }, height: { value: height } } },
        data: [{ name: data, values }],
        scales: [
          { name: 'row', type: 'band' as const, domain: chart.categories, range: [0, height], paddingInner: 0.15, paddingOuter: 0.05 },
          { name: 'length', type: 'linear' as const, domain: { data, field: 'value' }, range: [0, panelWidth], zero: true, nice: true },
        ],
        axes: [
          { orient: 'bottom' as const, scale: 'length', grid: true, gridOpacity: 0.3, tickCount: 4 },
          { orient: 'left' as const, scale: 'row', labels: index === 0, ticks: index === 0, labelLimit: 1000, labelFontSize: 10 },
        ],
        marks: [
          {
            type: 'group' as const,
            from: { facet: { name: `${data}_row`, data, groupby: 'category' } },
            encode: { enter: { y: { scale: 'row', field: 'category' } } },
            signals: [{ name: 'height', update: 'bandwidth("row")' }],
            scales: [{ name: 'slot', type: 'band' as const, domain: chart.groups, range: 'height' as const, paddingInner: 0.1 }],
            marks: [
              {
                type: 'rect' as const,
                from: { data: `${data}_row` },
                encode: {
                  enter: {
                    y: { scale: 'slot', field: 'group' },
                    height: { scale: 'slot', band: 1 },
                    x: { scale: 'length', value: 0 },
                    x2: { scale: 'length', field: 'value' },
                    fill: { scale: 'colour', field: 'group' },
                  },
                },
              },
              {
                type: 'text' as const,
                from: { data: `${data}_row` },
                encode: {
                  enter: {
                    y: { scale: 'slot', field: 'group', band: 0.5 },
                    x: { scale: 'length', field: 'value', offset: 3 },
                    baseline: { value: 'middle' as const },
                    fontSize: { value: 9 },
                    fill: { value: '#333' },
                    text: { signal: 'datum.label' },
                  },
                },
              },
            ],
          },
        ],
      };
    }),
  };
  return render(spec);
}
