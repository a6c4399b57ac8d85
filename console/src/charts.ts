// uPlot charts as Preact components: the mailbox reputation line, its sparkline, the bulk statistics
// bars. Each chart is a canvas with role="img" and a text label, followed in the pages by the same
// numbers as text, so screen readers get the data too.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { ReputationPoint, Status } from './api';
import { html } from './html';
import { statuses, statusWords } from './words';

interface ChartProps {
  label: string;
  height: number;
  /** Width when the container cannot say (a sparkline in a table cell). */
  width?: number;
  build: (
    width: number,
    height: number,
  ) => { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData };
  /** Rebuild when this changes. */
  version: string;
  className?: string;
}

function Chart({ label, height, width, build, version, className }: ChartProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const target = ref.current;
    if (!target) return;
    const measure = () => width ?? Math.max(120, target.clientWidth);
    const { options, data } = build(measure(), height);
    const plot = new uPlot({ ...options, width: measure(), height }, data, target);
    const observer =
      width === undefined ? new ResizeObserver(() => plot.setSize({ width: measure(), height })) : undefined;
    observer?.observe(target);
    return () => {
      observer?.disconnect();
      plot.destroy();
    };
  }, [version]);
  return html`<div class=${`chart ${className ?? ''}`} role="img" aria-label=${label} ref=${ref}></div>`;
}

const seconds = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;
const series = (history: ReputationPoint[]): uPlot.AlignedData => [
  history.map((p) => seconds(p.date)),
  history.map((p) => p.reputation),
];

export function ReputationChart({ history, label }: { history: ReputationPoint[]; label: string }) {
  return html`<${Chart}
    label=${label}
    height=${260}
    version=${JSON.stringify(history)}
    build=${() => ({
      data: series(history),
      options: {
        tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: [0, 100] } },
        axes: [{}, { values: (_u: uPlot, splits: number[]) => splits.map((v) => `${v}`) }],
        series: [{}, { label: 'Reputation', stroke: '#0969da', width: 2, fill: 'rgba(9,105,218,0.08)' }],
      },
    })}
  />`;
}

export function Sparkline({ history, label }: { history: ReputationPoint[]; label: string }) {
  return html`<${Chart}
    className="sparkline"
    label=${label}
    height=${28}
    width=${120}
    version=${JSON.stringify(history)}
    build=${() => ({
      data: series(history),
      options: {
        legend: { show: false },
        cursor: { show: false },
        padding: [2, 2, 2, 2],
        // Scaled to its own values: a sparkline shows the trend; the number beside it shows the level.
        scales: { x: { time: false } },
        axes: [{ show: false }, { show: false }],
        series: [{}, { stroke: '#0969da', width: 1.5, points: { show: false } }],
      },
    })}
  />`;
}

export function StatisticsChart({
  statistics,
  label,
}: {
  statistics: Record<Status, number>;
  label: string;
}) {
  const colors = statuses.map((s) => statusWords[s].color);
  return html`<${Chart}
    label=${label}
    height=${220}
    version=${JSON.stringify(statistics)}
    build=${() => ({
      data: [statuses.map((_, i) => i), statuses.map((s) => statistics[s])],
      options: {
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x: { time: false, range: [-0.5, statuses.length - 0.5] },
          y: {
            range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [0, Math.max(1, max) * 1.1],
          },
        },
        axes: [
          {
            splits: () => statuses.map((_, i) => i),
            values: (_u: uPlot, splits: number[]) =>
              splits.map((i) => statusWords[statuses[i]!]?.label ?? ''),
            grid: { show: false },
          },
          // Counts: whole-number ticks only.
          {
            incrs: [
              1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 1e7,
            ],
          },
        ],
        series: [
          {},
          {
            label: 'Emails',
            paths: uPlot.paths.bars!({
              size: [0.6, 80],
              // One colour per status, the same as the table's dots.
              disp: { fill: { unit: 3, values: () => colors }, stroke: { unit: 3, values: () => colors } },
            }),
            points: { show: false },
          },
        ],
      },
    })}
  />`;
}
