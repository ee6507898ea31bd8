// One bar chart of the Stats tab, drawn by Chart.js on a canvas. Chart.js needs no inline script,
// no eval and no <style> element (it sets the canvas's size through the DOM), so it runs under
// the inbox's CSP (`script-src 'self'; style-src 'self'`). Only the parts used are registered,
// which keeps the bundle small. Animations are off: the numbers are read, not watched.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartDataset,
  Legend,
  LinearScale,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'react';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface StatsChartProps {
  /** The chart's accessible name (the numbers are also in the table below the charts). */
  label: string;
  labels: string[];
  datasets: ChartDataset<'bar', number[]>[];
  stacked?: boolean;
  /** The value axis's title. */
  unit: string;
  testId: string;
}

/** Colours read from the page's own CSS variables, so the charts follow light and dark themes. */
function cssColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v === '' ? fallback : v;
}

export function StatsChart({ label, labels, datasets, stacked = false, unit, testId }: StatsChartProps) {
  const canvas = useRef<HTMLCanvasElement | null>(null);
  const chart = useRef<Chart<'bar', number[], string> | null>(null);

  useEffect(() => {
    if (!canvas.current) return;
    const text = cssColor('--muted', '#5a6272');
    const grid = cssColor('--border', '#d9dde5');
    chart.current = new Chart(canvas.current, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { stacked, ticks: { color: text }, grid: { color: grid } },
          y: {
            stacked,
            beginAtZero: true,
            title: { display: true, text: unit, color: text },
            // Counts are whole numbers: no 0.5 question on the axis.
            ticks: { color: text, ...(unit === 'questions' ? { precision: 0 } : {}) },
            grid: { color: grid },
          },
        },
        plugins: { legend: { labels: { color: text } } },
      },
    });
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, [stacked, unit]);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    c.data.labels = labels;
    c.data.datasets = datasets;
    c.update();
  }, [labels, datasets]);

  return (
    <figure className="stats-chart" data-testid={testId} data-bars={labels.length}>
      <figcaption>{label}</figcaption>
      <div className="stats-canvas">
        <canvas ref={canvas} role="img" aria-label={label} />
      </div>
    </figure>
  );
}
