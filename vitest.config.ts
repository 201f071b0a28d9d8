// Four suites: unit (pure modules), islands (React islands with Testing Library in happy-dom, the
// network stubbed at fetch), integration (the API in-process against a real migrated database:
// PGlite, or PostgreSQL when DATABASE_URL is set), e2e (the built server driven by Debian's Chromium
// through playwright-core). The integration and browser suites copy their databases from one migrated
// per run (tests/helpers/template-database.ts); the browser suite's files share one Chromium
// (tests/helpers/browser-server.ts).
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // one test file per core (vitest's default leaves one core to itself, which on CI's two cores
    // runs every file one after the other): the files mostly wait, on their databases, on the
    // built server they started, on Chromium; the browser files run beside the others and each other
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'islands',
          include: ['tests/islands/**/*.test.tsx'],
          environment: 'happy-dom',
          setupFiles: ['tests/islands/setup.ts'],
          // a bound for a test that hangs, far above what one takes on a machine with CI's lanes beside it
          testTimeout: 30_000,
          // flatpickr's stylesheet URL (date-picker.ts imports it with ?url) is a real path, not ''
          css: { include: [/flatpickr/] },
          // stylesheets are not fetched; a <link> reports 'load' (flatpickr's waits for it)
          environmentOptions: {
            happyDOM: { url: 'http://console.test/', settings: { handleDisabledFileLoadingAsSuccess: true } },
          },
          // in a zone other than UTC, so a date written in the browser's zone instead of UTC shows
          env: { TZ: 'America/New_York' },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: ['tests/helpers/template-database.ts'],
          testTimeout: 90_000,
          // bounds for a hang: a test or a file's setup (a server, a sink, seeded traffic) took over 30 and 60 s
          // on PostgreSQL with CI's lanes on two loaded cores
          hookTimeout: 240_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          globalSetup: ['tests/helpers/template-database.ts', 'tests/helpers/browser-server.ts'],
          // bounds for a hang: a test of many pages with axe took just over 60 s with CI's lanes on
          // two loaded cores
          testTimeout: 180_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
