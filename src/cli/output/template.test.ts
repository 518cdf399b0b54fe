import { describe, expect, it } from 'vitest';
import { compileTemplate, unescapeTemplate } from './template.js';

const NOW = Date.parse('2024-05-01T12:00:00Z');

describe('--template (Handlebars)', () => {
  it('\\n and \\t read as printf reads them; \\\\ is a backslash', () => {
    expect(unescapeTemplate('{{id}}\\t{{title}}\\n')).toBe('{{id}}\t{{title}}\n');
    expect(unescapeTemplate('a\\\\nb')).toBe('a\\nb');
  });

  it('iterates a list and prints text unescaped', async () => {
    const r = await compileTemplate('{{#each this}}{{id}}\\t{{title}}\\n{{/each}}', () => NOW);
    expect(
      r([
        { id: 1, title: 'Fish & Chips <large>' },
        { id: 2, title: 'Tea' },
      ]),
    ).toBe('1\tFish & Chips <large>\n2\tTea\n');
  });

  it('helpers: json, join, timeago, truncate, status, pad', async () => {
    const r = await compileTemplate(
      '{{json cart}}|{{join brand_ids "+"}}|{{timeago created_at}}|{{truncate title 5}}|{{status status}}|{{pad id 4}}|',
      () => NOW,
    );
    expect(
      r({
        cart: [{ q: 1 }],
        brand_ids: [1, 2],
        created_at: '2024-05-01T11:00:00Z',
        title: 'Cheeseburger',
        status: 4,
        id: 7,
      }),
    ).toBe('[{"q":1}]|1+2|1 hour ago|Chee…|READY|7   |');
  });

  it('a syntax error or an unknown helper is a usage error before anything runs', async () => {
    await expect(compileTemplate('{{#each this}}{{id}}', () => NOW)).rejects.toMatchObject({
      name: 'UsageError',
      message: expect.stringMatching(/^--template: .*each/),
    });
    await expect(compileTemplate('{{nosuchhelper id}}', () => NOW)).rejects.toMatchObject({
      name: 'UsageError',
      message: expect.stringMatching(/^--template: Missing helper: "nosuchhelper"/),
    });
  });
});
