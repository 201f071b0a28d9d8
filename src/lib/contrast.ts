// Text on the enterprise's own header colour (docs/console.md §2 Shell: the header takes the enterprise's
// colour): white or near-black, whichever reads better by WCAG 2.1's contrast ratio (axe
// found white text under the 4.5:1 of WCAG 1.4.3 on light brand colours).

/** WCAG 2.1 relative luminance of a #rgb or #rrggbb colour (an alpha digit or pair is ignored). */
export function luminance(hex: string): number {
  const digits = hex.replace('#', '');
  const full = digits.length <= 4 ? [...digits.slice(0, 3)].map((d) => d + d).join('') : digits.slice(0, 6);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

export const LIGHT_INK = '#ffffff';
// black, not a softer dark: only black and white together reach 4.5:1 on every mid-tone colour
export const DARK_INK = '#000000';

/** The text colour for a background: white unless near-black reads better. */
export function inkFor(background: string): string {
  return contrastRatio(background, LIGHT_INK) >= contrastRatio(background, DARK_INK) ? LIGHT_INK : DARK_INK;
}
