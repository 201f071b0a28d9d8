// Alerts shown by the <Alerts> island in the layout; each vanishes after its own delay (docs/console-reports.md
// §9: 2 s by default, 5 s on report pages, 6 s for exports).
import { atom } from 'nanostores';
import { ALERT_MS } from '../lib/timings.ts';

export type AlertKind = 'success' | 'danger' | 'info' | 'warning';

export interface Alert {
  id: number;
  kind: AlertKind;
  text: string;
}

export const alerts = atom<Alert[]>([]);
let nextId = 1;

export function dismissAlert(id: number): void {
  alerts.set(alerts.get().filter((a) => a.id !== id));
}

/** Shows an alert and removes it after `ms` milliseconds. */
export function showAlert(kind: AlertKind, text: string, ms: number = ALERT_MS): number {
  const id = nextId++;
  alerts.set([...alerts.get(), { id, kind, text }]);
  setTimeout(() => dismissAlert(id), ms);
  return id;
}
