import { alerts, dismissAlert } from './stores/alerts.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/** Renders the alert store as Bulma notifications, top right. */
export default function Alerts() {
  const $alerts = useIslandStore(alerts);
  return (
    <div className="alerts" role="status" aria-live="polite">
      {$alerts.map((a) => (
        <div key={a.id} className={`notification is-${a.kind}`} data-testid="alert">
          <button type="button" className="delete" aria-label="Dismiss" onClick={() => dismissAlert(a.id)} />
          {a.text}
        </div>
      ))}
    </div>
  );
}
