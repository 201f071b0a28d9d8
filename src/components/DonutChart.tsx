// A donut of a few parts in plain SVG: one circle per part, its dash the part's share of the ring
// (circumference 100, so a share in percent is its dash length). A part's <title> is its tooltip.
import { formatCount } from '../lib/numbers.ts';

interface Part {
  label: string;
  value: number;
  /** A tone class: is-delivered, is-bounced, is-failed (docs/console.md §9 colours, console.scss). */
  tone: string;
}

interface Props {
  parts: Part[];
  /** The words under the total in the middle. */
  caption: string;
  /** The text in the middle instead of the total (the group Overview shows the delivered share). */
  centre?: string;
  testId: string;
}

const RADIUS = 100 / (2 * Math.PI);

export default function DonutChart({ parts, caption, centre, testId }: Props) {
  const total = parts.reduce((n, p) => n + p.value, 0);
  let start = 0;
  return (
    <svg
      className="donut"
      viewBox="0 0 42 42"
      role="img"
      aria-label={parts.map((p) => `${p.label} ${p.value}`).join(', ')}
      data-testid={testId}
    >
      <circle className="donut-ring" cx="21" cy="21" r={RADIUS} />
      {parts.map((part) => {
        if (part.value <= 0 || total === 0) return null;
        const share = (part.value / total) * 100;
        // dashes start at three o'clock; 25 turns them to twelve, then clockwise
        const offset = 25 - start;
        start += share;
        return (
          <circle
            key={part.label}
            className={`donut-slice ${part.tone}`}
            cx="21"
            cy="21"
            r={RADIUS}
            strokeDasharray={`${share} ${100 - share}`}
            strokeDashoffset={offset}
            data-part={part.label}
          >
            <title>{`${part.label}: ${formatCount(part.value)} (${Math.round(share)}%)`}</title>
          </circle>
        );
      })}
      <text className="donut-total" x="21" y="21">
        {centre ?? formatCount(total)}
      </text>
      <text className="donut-caption" x="21" y="26">
        {caption}
      </text>
    </svg>
  );
}
