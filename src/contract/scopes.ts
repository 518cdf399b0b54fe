// Scopes of spec §5 rule 7. A credential holds a subset; an operation names the scopes that grant it.
export const SCOPES = [
  'brands:read',
  'brands:update',
  'brands:create',
  'branches:read',
  'branches:create',
  'branches:update',
  'menus:read',
  'menus:create',
  'menus:update',
  'menus:delete',
  'menus:oos',
  'orders:read',
  'orders:update',
  'stock:update',
  'visibility:write',
  'webhooks:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
