import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLORS = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2'];

/**
 * A uPlot chart (bars or lines) with a text alternative: the figure is named by `label` and the
 * same numbers are given in a table next to it by the page.
 */
export function Chart(props: {
  label: string;
  x: number[];
  series: { label: string; values: number[] }[];
  bars?: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const width = Math.max(Math.min(el.clientWidth || 640, 960), 320);
    const paths = props.bars ? uPlot.paths.bars?.({ size: [0.6, 40] }) : undefined;
    const plot = new uPlot(
      {
        width,
        height: 240,
        series: [
          {},
          ...props.series.map((s, i) => ({
            label: s.label,
            stroke: COLORS[i % COLORS.length],
            fill: props.bars ? COLORS[i % COLORS.length] : undefined,
            paths,
          })),
        ],
        axes: [{}, {}],
        scales: { x: { time: !props.bars } },
      },
      [props.x, ...props.series.map((s) => s.values)],
      el,
    );
    return () => plot.destroy();
  }, [props.x, props.series, props.bars]);
  return <div ref={host} role="img" aria-label={props.label} class="chart" />;
}
