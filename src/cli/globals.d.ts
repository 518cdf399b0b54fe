/** Package version, defined at build time (scripts/build.mjs) and by vitest.config.ts. */
declare const __PARTNER_VERSION__: string;
