// The x-axis of a daily chart: frappe-charts (1.6) thins a series' labels that do not fit by keeping
// every n-th from the first, so the last day (today) often goes unlabelled and the axis seems to stop
// a day early. The same step counted back from the last day keeps it labelled.

/**
 * `shown` is frappe's thinning of `labels` (blanks where a label was dropped); the same number of
 * labels kept at the same step, counted back from the last one.
 */
export function keepLastLabel(labels: readonly string[], shown: readonly string[]): string[] {
  if (shown.every((label) => label !== '')) return [...shown];
  const next = shown.findIndex((label, i) => i > 0 && label !== '');
  const step = next > 0 ? next : labels.length;
  return labels.map((label, i) => ((labels.length - 1 - i) % step === 0 ? label : ''));
}
