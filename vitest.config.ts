import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __PARTNER_VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
