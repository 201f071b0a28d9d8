import { useStore } from '@nanostores/react';
import { alerts, dismissAlert } from './stores/alerts.ts';

/** Renders the alert store as Bulma notifications, top right. */
export default function Alerts() {
  const $alerts = useStore(alerts);
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
