import { describe, expect, it } from 'vitest';
import { MANIFEST } from '../manifest/data.js';
import type { ManifestOp } from '../manifest/types.js';
import { deriveCommand, flagNamesFor, kebab, RESERVED_FLAGS } from './derive.js';
import { OVERRIDES } from './overrides.js';

const op = (over: Partial<ManifestOp>): ManifestOp => ({
  id: 'x',
  method: 'GET',
  path: '/v1/partner/x',
  auth: 'partner',
  scopes: [],
  summary: 's',
  status: 200,
  paginated: false,
  cli: { command: ['x', 'list'], example: 'partner x list' },
  params: [],
  query: [],
  body: null,
  ...over,
});

describe('flag naming', () => {
  it('kebab-cases snake and camel names', () => {
    expect(kebab('fieldIncludeOnSync')).toBe('field-include-on-sync');
    expect(kebab('rate_limit')).toBe('rate-limit');
    expect(kebab('isAvailable')).toBe('is-available');
  });
  it('shortens *_id and *_ids to the noun, keeping the long form as an alias', () => {
    const o = op({});
    expect(flagNamesFor({ name: 'branch_id', type: 'integer', required: false }, o)).toEqual({
      name: 'branch',
      aliases: ['branch-id'],
    });
    expect(flagNamesFor({ name: 'branch_ids', type: 'array', items: 'integer', required: false }, o)).toEqual(
      {
        name: 'branch',
        aliases: ['branch-ids'],
      },
    );
    expect(flagNamesFor({ name: 'partner_item_id', type: 'string', required: false }, o).name).toBe(
      'partner-item-id',
    );
  });
  it("takes the contract's cli.flags renames first", () => {
    const o = op({
      cli: { command: ['x', 'y'], example: 'partner x y', flags: { owner_id: 'owner', title: 'name' } },
    });
    expect(flagNamesFor({ name: 'title', type: 'string', required: false }, o)).toEqual({
      name: 'name',
      aliases: ['title'],
    });
    expect(flagNamesFor({ name: 'owner_id', type: 'integer', required: false }, o)).toEqual({
      name: 'owner',
      aliases: ['owner-id'],
    });
  });

  it('uses the documented names for operator credential flags', () => {
    const rotate = MANIFEST.ops.find((o) => o.id === 'operatorRotateCredential')!;
    const scopes = MANIFEST.ops.find((o) => o.id === 'operatorSetCredentialScopes')!;
    const create = MANIFEST.ops.find((o) => o.id === 'operatorCreateCredential')!;
    expect(deriveCommand(rotate)!.flags.map((f) => f.name)).toEqual(['grace']);
    expect(deriveCommand(scopes)!.flags.map((f) => f.name)).toEqual(['set']);
    expect(
      deriveCommand(create)!
        .flags.map((f) => f.name)
        .sort(),
    ).toEqual(['business', 'rate-limit', 'scopes']);
  });

  it('uses the pinned names --event-id (webhooks log) and --include (menu sync)', () => {
    const log = MANIFEST.ops.find((o) => o.id === 'operatorWebhookLog')!;
    const sync = MANIFEST.ops.find((o) => o.id === 'syncMenuToStores')!;
    expect(deriveCommand(log)!.flags.map((f) => f.name)).toEqual(
      expect.arrayContaining(['event-id', 'status', 'business']),
    );
    expect(deriveCommand(sync)!.flags.map((f) => f.name)).toEqual(
      expect.arrayContaining(['include', 'brand', 'branch']),
    );
  });
});

describe('deriveCommand', () => {
  it('maps path params to arguments, query to flags, body fields to flags by kind', () => {
    const spec = deriveCommand(
      op({
        method: 'POST',
        path: '/v1/partner/x/{id}',
        params: [{ name: 'id', type: 'integer', required: true }],
        query: [{ name: 'page', type: 'integer', required: false }],
        body: {
          open: false,
          fields: [
            { name: 'title', type: 'string', required: true },
            { name: 'is_busy', type: 'boolean', required: false },
            { name: 'brand_ids', type: 'array', items: 'integer', required: true },
            { name: 'available_times', type: 'object', required: false },
            { name: 'business_id', type: 'any', required: false },
            { name: 'json', type: 'string', required: false },
          ],
        },
      }),
    )!;
    expect(spec.args.map((a) => a.name)).toEqual(['id']);
    expect(spec.flags.map((f) => [f.name, f.in, f.kind])).toEqual([
      ['page', 'query', 'value'],
      ['title', 'body', 'value'],
      ['is-busy', 'body', 'boolean'],
      ['brand', 'body', 'list'],
      ['available-times', 'body', 'value'],
    ]);
    expect(spec.bodyOption).toBe('data');
    expect(spec.idempotencyKey).toBe(true);
    expect(spec.confirm).toBe(false);
  });

  it('never derives a flag that collides with a global or per-command option', () => {
    for (const o of MANIFEST.ops) {
      const spec = deriveCommand(o, OVERRIDES[o.id]);
      for (const f of spec?.flags ?? []) {
        expect(RESERVED_FLAGS.has(f.name), `${o.id} --${f.name}`).toBe(false);
        for (const a of f.aliases) expect(RESERVED_FLAGS.has(a), `${o.id} --${a}`).toBe(false);
      }
    }
  });

  it('operator commands take the body as --body (--data is their data dir)', () => {
    const create = MANIFEST.ops.find((o) => o.id === 'operatorCreateBusiness')!;
    expect(deriveCommand(create)!.bodyOption).toBe('body');
    expect(deriveCommand(create)!.idempotencyKey).toBe(false);
  });

  it('offers --all on paginated lists and confirmation on deletes', () => {
    expect(deriveCommand(MANIFEST.ops.find((o) => o.id === 'listBranches')!)!.all).toBe(true);
    expect(deriveCommand(MANIFEST.ops.find((o) => o.id === 'deletePriceGroup')!)!.confirm).toBe(true);
  });

  it('drops the flags an override fills itself', () => {
    const patch = MANIFEST.ops.find((o) => o.id === 'patchOrderStatus')!;
    const names = deriveCommand(patch, OVERRIDES.patchOrderStatus)!.flags.map((f) => f.name);
    expect(names).not.toContain('id');
    expect(names).not.toContain('platform');
    expect(names).not.toContain('status');
    expect(names).not.toContain('cancellation-reason');
  });
});

describe('the command tree from the real table', () => {
  const paths = MANIFEST.ops.filter((o) => o.cli).map((o) => o.cli!.command.join(' '));

  it('gives every operation with a CLI name a unique command', () => {
    expect(new Set(paths).size).toBe(paths.length);
    for (const o of MANIFEST.ops) if (o.cli) expect(deriveCommand(o, OVERRIDES[o.id])).toBeDefined();
  });

  it('has the documented command names for the operations that exist', () => {
    const pinned = [
      'brands list',
      'brands create',
      'brands update',
      'branches list',
      'branches get',
      'branches create',
      'branches update',
      'providers list',
      'price-groups list',
      'price-groups create',
      'price-groups update',
      'price-groups delete',
      'orders list',
      'orders get',
      'orders patch',
      'orders comment',
      'orders statuses',
      'operator businesses list',
      'operator businesses create',
      'operator credentials create',
      'operator credentials list',
      'operator credentials rotate',
      'operator credentials revoke',
      'operator credentials scopes',
    ];
    for (const p of pinned) expect(paths, p).toContain(p);
  });

  it('has an override only for operations that exist or are expected', () => {
    const ids = new Set(MANIFEST.ops.map((o) => o.id));
    const known = [
      'patchOrderStatus',
      'setOrderComment',
      'setItemAvailability',
      'snoozeItem',
      'updateItemStocks',
      'operatorSetOrderStatus',
    ];
    for (const id of Object.keys(OVERRIDES)) expect(ids.has(id) || known.includes(id), id).toBe(true);
  });
});
