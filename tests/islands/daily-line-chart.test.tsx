// The daily line chart shared by the Dashboard's overview and the reports' Activity:
// busy until an answer, a legend of the series, 'No data.' with a Retry that calls back when the
// call failed or the range has no days, and a chart drawn once there are days. frappe-charts itself
// does not load under happy-dom (a circular import its bundle hides), so its class is replaced by one
// that records what it was given; the browser tests draw the real one.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import DailyLineChart, { type DailySeries } from '../../src/components/DailyLineChart.tsx';

const drawn = vi.hoisted(() => ({ charts: [] as { options: any; destroyed: boolean }[] }));
vi.mock('../../src/components/charts/charts.ts', () => ({
  CountChart: class {
    record: { options: any; destroyed: boolean };
    constructor(parent: HTMLElement, options: unknown) {
      parent.append(document.createElementNS('http://www.w3.org/2000/svg', 'svg'));
      this.record = { options, destroyed: false };
      drawn.charts.push(this.record);
    }
    destroy() {
      this.record.destroyed = true;
    }
  },
}));

interface Day {
  tstat_day: string;
  sent: number;
  opens: number;
}
const SERIES: DailySeries<Day>[] = [
  { name: 'Sent', value: (d) => d.sent, colour: '#3273dc' },
  { name: 'Opens', value: (d) => d.opens, colour: '#8e6ad8' },
];
const DAYS: Day[] = [
  { tstat_day: '2026-11-21', sent: 3, opens: 1 },
  { tstat_day: '2026-11-22', sent: 5, opens: 2 },
];

function draw(status: 'idle' | 'loading' | 'loaded' | 'failed', days: Day[], onRetry = vi.fn()) {
  const view = render(
    <DailyLineChart
      status={status}
      days={days}
      series={SERIES}
      height={200}
      testId="chart"
      label="Daily sent, opens"
      onRetry={onRetry}
      retryTestId="retry"
    />,
  );
  return { ...view, onRetry };
}

afterEach(cleanup);

describe('DailyLineChart', () => {
  it('is busy while loading, with the legend and no empty text', () => {
    const { container } = draw('loading', []);
    expect(container.firstElementChild?.getAttribute('aria-busy')).toBe('true');
    expect([...container.querySelectorAll('.chart-legend-list li')].map((li) => li.textContent)).toEqual([
      'Sent',
      'Opens',
    ]);
    expect(screen.queryByTestId('retry')).toBeNull();
    expect(screen.getByRole('img', { name: 'Daily sent, opens' })).toBeTruthy();
  });

  it.each([
    ['failed', DAYS],
    ['loaded', []],
  ] as const)('shows No data. and a Retry that calls back when %s with %j days', (status, days) => {
    const { onRetry, container } = draw(status, [...days]);
    expect(container.textContent).toContain('No data.');
    fireEvent.click(screen.getByTestId('retry'));
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('chart').dataset.drawn).toBeUndefined();
  });

  it('draws the chart once there are days, and clears it when the days go', async () => {
    drawn.charts.length = 0;
    const { rerender } = draw('loaded', DAYS);
    await waitFor(() => expect(screen.getByTestId('chart').dataset.drawn).toBe('true'));
    expect(screen.getByTestId('chart').querySelector('svg')).not.toBeNull();
    const [{ options }] = drawn.charts;
    expect(options.height).toBe(200);
    expect(options.data).toEqual({
      labels: ['Nov 21', 'Nov 22'],
      datasets: [
        { name: 'Sent', values: [3, 5] },
        { name: 'Opens', values: [1, 2] },
      ],
    });
    expect(options.colors).toEqual(['#3273dc', '#8e6ad8']);
    expect(options.tooltipOptions.formatTooltipX('Nov 22')).toMatch(/22.*2026|2026.*22/);
    rerender(
      <DailyLineChart
        status="loading"
        days={[]}
        series={SERIES}
        height={200}
        testId="chart"
        label="Daily sent, opens"
        onRetry={vi.fn()}
        retryTestId="retry"
      />,
    );
    expect(screen.getByTestId('chart').dataset.drawn).toBeUndefined();
    expect(screen.getByTestId('chart').childElementCount).toBe(0);
    expect(drawn.charts[0].destroyed).toBe(true);
  });
});
