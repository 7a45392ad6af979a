/// <reference types="vite/client" />

/** The console's version from package.json, injected by vite.config.ts. */
declare const __APP_VERSION__: string;
