// File sizes as the attachment pages show them (docs/console-reports.md §9): Bytes, KB, MB, GB, TB, base 1024.
const UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB'] as const;

export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  const power = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), UNITS.length - 1);
  const value = bytes / 1024 ** power;
  return `${power === 0 ? value : Number(value.toFixed(2))} ${UNITS[power]}`;
}
