import type { PartnerClient } from '../../client/client.js';
import { menuChanges } from './menu-diff.js';
import type { MenuHistory } from './menu-history.js';
import type { MenuSnapshot, MenuTargets, MenuView } from '../../contract/inspect-wire.js';

// Menu preview: the published snapshot of a brand at a branch, read by this process with the
// partner credential (the page never sees it), compared with the previous publish it saw.

const TARGETS_TTL_MS = 30_000;

interface BrandEntry {
  brands: { id: number; title: string }[];
}
interface Branch {
  id: number;
  title: string;
  brand_ids: number[];
  currency_code: string;
}

export class MenuSource {
  private targets: { at: number; value: MenuTargets } | undefined;

  constructor(
    private readonly client: PartnerClient,
    private readonly history: MenuHistory,
  ) {}

  /** Brands with their branches, and the providers whose ids key prices (cached briefly). */
  async listTargets(): Promise<MenuTargets> {
    if (this.targets && Date.now() - this.targets.at < TARGETS_TTL_MS) return this.targets.value;
    const [entries, providers, branches] = await Promise.all([
      this.client.call('listBrands') as Promise<BrandEntry[]>,
      this.client.call('listProviders') as Promise<{ id: number; title: string }[]>,
      this.allBranches(),
    ]);
    const value: MenuTargets = {
      brands: entries
        .flatMap((e) => e.brands)
        .map((b) => ({
          id: b.id,
          title: b.title,
          branches: branches
            .filter((br) => br.brand_ids.includes(b.id))
            .map((br) => ({ id: br.id, title: br.title, currency_code: br.currency_code })),
        })),
      providers: providers.map((p) => ({ id: p.id, title: p.title })),
    };
    this.targets = { at: Date.now(), value };
    return value;
  }

  private async allBranches(): Promise<Branch[]> {
    const out: Branch[] = [];
    for (let page = 1; page <= 100; page++) {
      const r = (await this.client.call('listBranches', { query: { page, size: 100 } })) as {
        results: Branch[];
        total: number;
      };
      out.push(...r.results);
      if (r.results.length < 100 || out.length >= r.total) break;
    }
    return out;
  }

  async menu(brandId: number, branchId: number): Promise<MenuView> {
    const fetched_at = new Date().toISOString();
    let snapshot: MenuSnapshot;
    try {
      snapshot = (await this.client.call('getMenu', {
        query: { brand_id: brandId, branch_id: branchId },
      })) as MenuSnapshot;
    } catch (err) {
      // Before the first publish the store has no snapshot: that is a state to show, not an error.
      if ((err as { code?: string }).code === 'resource_not_found')
        return {
          brand_id: brandId,
          branch_id: branchId,
          snapshot: null,
          previous_version: null,
          changes: null,
          fetched_at,
        };
      throw err;
    }
    const previous = this.history.record(this.client.baseUrl, snapshot);
    return {
      brand_id: brandId,
      branch_id: branchId,
      snapshot,
      previous_version: previous?.version ?? null,
      changes: previous ? menuChanges(previous, snapshot) : null,
      fetched_at,
    };
  }
}
