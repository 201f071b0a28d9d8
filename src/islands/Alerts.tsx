import { alerts, dismissAlert } from '../stores/alerts.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/**
 * Renders the alert store as Bulma notifications, top right: the message, then its Dismiss button
 * beside it in a row of its own (Bulma places the button over the notification's padding, where
 * a long message ran under it).
 */
export default function Alerts() {
  const $alerts = useIslandStore(alerts);
  return (
    <div className="alerts" role="status" aria-live="polite">
      {$alerts.map((a) => (
        <div key={a.id} className={`notification is-${a.kind}`} data-testid="alert">
          <span className="alert-text">{a.text}</span>
          <button type="button" className="delete" aria-label="Dismiss" onClick={() => dismissAlert(a.id)} />
        </div>
      ))}
    </div>
  );
}
