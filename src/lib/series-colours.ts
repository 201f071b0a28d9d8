// The charts' line colours, shared by the Dashboard's overview chart and the reports' Activity charts.

export type SeriesTone =
  | 'sent'
  | 'delivered'
  | 'bounced'
  | 'failed'
  | 'opens'
  | 'clicks'
  | 'hard'
  | 'soft'
  | 'unique'
  | 'machines';

/**
 * docs/console.md §9 and docs/console-reports.md §9: delivered green, bounced yellow, failed red; calm tones for the
 * rest.
 */
export const SERIES_COLOURS: Record<SeriesTone, string> = {
  sent: '#3273dc',
  delivered: '#23a26d',
  bounced: '#f2a900',
  failed: '#e0403f',
  opens: '#8e6ad8',
  clicks: '#1fa3b8',
  hard: '#c0392b',
  soft: '#e67e22',
  unique: '#34495e',
  // machines' opens and clicks: a quiet grey beside the people's (3.7:1 on white, WCAG 1.4.11)
  machines: '#7b8794',
};
