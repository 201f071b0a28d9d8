// What every console page answers while the database is unreachable, instead of a crash
// page: it needs nothing but itself (no stylesheet, no script, no database), says that nothing was
// lost, and tries again by itself: a few lines of script ask /readyz every 10 s and reload once the
// service is ready (a <meta> refresh would reload on a timer, which WCAG 2.2.1 rules out), and a
// link does the same by hand.
export const UNAVAILABLE_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, ' +
  'initial-scale=1">' +
  '<title>Service temporarily unavailable</title></head>' +
  '<body style="font-family:system-ui,sans-serif;text-align:center;padding:4rem 1rem;color:#34495e"><main>' +
  '<h1 data-testid="unavailable">Service temporarily unavailable</h1>' +
  '<p>The service cannot reach its database for a moment. Nothing you entered was lost; this page tries again by ' +
  'itself.</p>' +
  '<p><a href="" style="color:#1d4ed8">Try again now</a></p>' +
  '</main><script>setInterval(function(){fetch("/readyz",{cache:"no-store"})' +
  '.then(function(r){if(r.ok)location.reload()},function(){})},10000)</script>' +
  '</body></html>';

/** The 503 answer carrying UNAVAILABLE_PAGE, with a Retry-After that matches its check. */
export function unavailable(): Response {
  return new Response(UNAVAILABLE_PAGE, {
    status: 503,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Retry-After': '10',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
