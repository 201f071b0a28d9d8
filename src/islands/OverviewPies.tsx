import { useEffect } from 'react';
import { useFrappeChart } from '../components/charts/use-frappe-chart.ts';
import { abbreviateCount } from '../lib/abbreviate.ts';
import { type OverviewStatsWire, type StatShare, percentText } from '../lib/group-report.ts';
import { openReport, overviewStats, startOverviewStats } from '../stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import { formatCount } from '../lib/numbers.ts';

interface PieSpec {
  id: 'opens' | 'clicks';
  title: string;
  parts(stats: OverviewStatsWire): { label: string; share: StatShare; colour: string; tone: string }[];
}

/**
 * Opens and clicks of the delivered messages (docs/console-reports.md §2; percentages of delivered, as the API gives
 * them).
 */
const PIES: PieSpec[] = [
  {
    id: 'opens',
    title: 'Opens',
    parts: (s) => [
      { label: 'Opened', share: s.uniqueOpens, colour: '#8e6ad8', tone: 'opened' },
      { label: 'Not Opened', share: s.notOpened, colour: '#c9d1dc', tone: 'not-opened' },
    ],
  },
  {
    id: 'clicks',
    title: 'Clicks',
    parts: (s) => [
      { label: 'Clicked', share: s.uniqueClicks, colour: '#1fa3b8', tone: 'clicked' },
      { label: 'Not Clicked', share: s.notClicked, colour: '#c9d1dc', tone: 'not-clicked' },
    ],
  },
];

function Pie({ spec, stats }: { spec: PieSpec; stats: OverviewStatsWire | null }) {
  const parts = stats ? spec.parts(stats) : [];
  const whole = parts.reduce((n, p) => n + p.share.value, 0);
  const holder = useFrappeChart(
    () => import('../components/charts/pie-charts.ts'),
    stats && whole !== 0
      ? ({ PieChart }, mount) =>
          new PieChart(mount, {
            type: 'pie',
            data: { labels: parts.map((p) => p.label), datasets: [{ values: parts.map((p) => p.share.value) }] },
            colors: parts.map((p) => p.colour),
            height: 220,
            tooltipOptions: { formatTooltipY: (value) => formatCount(value) },
          })
      : null,
    [stats],
  );

  return (
    <section className="card report-pie" aria-labelledby={`pie-${spec.id}-title`} data-testid={`pie-${spec.id}`}>
      <header className="card-header">
        <h2 className="card-header-title" id={`pie-${spec.id}-title`}>
          {spec.title}
        </h2>
      </header>
      <div className="card-content">
        <div
          ref={holder}
          className="chart-holder pie-holder"
          role="img"
          aria-label={parts.map((p) => `${p.label} ${p.share.value}`).join(', ') || spec.title}
          data-testid={`pie-${spec.id}-chart`}
        />
        {stats && whole === 0 && (
          <p className="has-text-centered has-text-grey chart-empty" data-testid={`pie-${spec.id}-empty`}>
            No Data
          </p>
        )}
        <dl className="pie-legend">
          {parts.map((p) => (
            <div key={p.label} className="pie-legend-item">
              <dt>
                <span className="legend-dot" style={{ background: p.colour }} aria-hidden="true" />
                {p.label}
              </dt>
              <dd data-testid={`pie-${spec.id}-${p.tone}`}>
                <span title={formatCount(p.share.value)}>{abbreviateCount(p.share.value)}</span>{' '}
                <span className="has-text-grey">{percentText(p.share.percentage)}</span>
              </dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}

/** The Overview report's open and click pie charts (docs/console-reports.md §2), drawn by frappe-charts. */
export default function OverviewPies({ groupUuid }: { groupUuid: string }) {
  const $overview = useIslandStore(overviewStats);
  useEffect(() => {
    openReport(groupUuid, 'overview');
    startOverviewStats();
  }, []);
  return (
    <div className="report-pies">
      {PIES.map((spec) => (
        <Pie key={spec.id} spec={spec} stats={$overview.stats} />
      ))}
    </div>
  );
}
