// vitest globalSetup of the browser suite: one Chromium for the whole run, which every test file
// connects to (launchBrowser in browser.ts) instead of starting its own; each file's pages still
// live in contexts of their own, closed with the file's connection.
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM, CHROMIUM_ARGS } from './browser.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's Playwright endpoint. */
    browserEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  project.provide('browserEndpoint', server.wsEndpoint());
  return () => server.close();
}
