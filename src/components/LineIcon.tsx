// The console's line icons in React, drawn like Icon.astro's: a 24-unit grid, 2-unit strokes with round ends in
// the text's colour. Hidden from assistive technology: the control that holds one carries the name.
import type { ReactNode } from 'react';

/** A stroked icon; `children` are its shapes (paths, lines, circles). */
export default function LineIcon({
  size,
  className,
  children,
}: {
  size: 16 | 18;
  className?: string;
  children: ReactNode;
}) {
  return (
    <svg
      className={className}
      viewBox="0 0 24 24"
      width={size}
      height={size}
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      {children}
    </svg>
  );
}
