/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    /** Server-side services for pages; set by the HTTP server or the dev integration. */
    bridge?: import('./server/page-bridge.ts').PageBridge;
    /** The signed-in session (verify_auth shape), resolved once by src/middleware.ts. */
    session: import('./lib/wire.ts').SessionWire | null;
  }
}
