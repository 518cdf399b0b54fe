import type { Counts, Plan, Step } from '../../../menu/plan.js';
import type { ExecResult } from '../../../menu/run.js';

// What people read: the plan (`menu diff`, `menu push --dry-run`, the confirmation) and the
// summary at the end of a push. JSON views of the same for --json.

const NOUNS: Record<keyof Counts, [string, string]> = {
  sections: ['section', 'sections'],
  categories: ['category', 'categories'],
  items: ['item', 'items'],
  modifier_groups: ['modifier group', 'modifier groups'],
  modifiers: ['modifier', 'modifiers'],
};
const ORDER: (keyof Counts)[] = ['sections', 'categories', 'items', 'modifier_groups', 'modifiers'];

function countsText(c: Counts): string {
  const parts = ORDER.filter((k) => c[k] > 0).map((k) => `${c[k]} ${NOUNS[k][c[k] === 1 ? 0 : 1]}`);
  return parts.length ? parts.join(', ') : 'nothing';
}

const total = (c: Counts) => ORDER.reduce((n, k) => n + c[k], 0);

const MARK: Record<Step['action'], string> = {
  create: '+',
  update: '~',
  link: '+',
  unlink: '-',
  sync: '»',
  publish: '»',
};

function paint(step: Step, text: string, color: boolean): string {
  if (!color) return text;
  const code =
    step.action === 'unlink'
      ? 31
      : step.action === 'update'
        ? 33
        : step.action === 'create' || step.action === 'link'
          ? 32
          : 36;
  return `\u001b[${code}m${text}\u001b[39m`;
}

export function planLines(plan: Plan, o: { color: boolean; limit?: number }): string[] {
  const shown = o.limit === undefined ? plan.steps : plan.steps.slice(0, o.limit);
  const lines = shown.map((s) => paint(s, `  ${MARK[s.action]} ${s.text}`, o.color));
  if (shown.length < plan.steps.length)
    lines.push(`  … and ${plan.steps.length - shown.length} more (\`partner menu diff\` shows every step)`);
  return lines;
}

export function planSummary(plan: Plan): string {
  const bits = [
    `create ${countsText(plan.created)}`,
    `update ${countsText(plan.updated)}`,
    `${plan.links} link${plan.links === 1 ? '' : 's'}`,
    `${plan.unlinks} unlink${plan.unlinks === 1 ? '' : 's'}`,
    plan.publish === 'none'
      ? 'no sync or publish'
      : plan.publish === 'resume'
        ? 'sync and publish (finishing an interrupted push)'
        : 'then sync and publish',
  ];
  return `${bits.join('; ')}; unchanged: ${countsText(plan.unchanged)}`;
}

function stepView(s: Step) {
  return {
    stage: Math.floor(s.stage),
    action: s.action,
    ...(s.entity ? { entity: s.entity } : {}),
    ...(s.key ? { key: s.key } : {}),
    operation: s.op,
    text: s.text,
    ...(s.changes
      ? { changes: s.changes.map((c) => (c.unknown ? { field: c.field, to: c.to, restated: true } : c)) }
      : {}),
  };
}

export function planView(plan: Plan, file: string, pacedSeconds?: number) {
  return {
    file,
    brand_id: plan.brand_id,
    branch_ids: plan.branch_ids ?? null,
    steps: plan.steps.length,
    /** Every step is one write call. */
    calls: plan.steps.length,
    /** The least time those calls take under the credential's rate limit; null when unknown. */
    paced_seconds: pacedSeconds === undefined ? null : Math.round(pacedSeconds),
    create: plan.created,
    update: plan.updated,
    unchanged: plan.unchanged,
    links: plan.links,
    unlinks: plan.unlinks,
    publish: plan.publish !== 'none',
    plan: plan.steps.map(stepView),
  };
}

interface SummaryInput {
  file: string;
  plan: Plan;
  result: ExecResult;
  ms: number;
  stateFile: string;
}

export function summaryView(s: SummaryInput) {
  const { plan, result } = s;
  return {
    file: s.file,
    brand_id: plan.brand_id,
    branch_ids: plan.branch_ids ?? null,
    dry_run: false,
    steps: result.done,
    created: plan.created,
    updated: plan.updated,
    unchanged: plan.unchanged,
    links: plan.links,
    unlinks: plan.unlinks,
    replayed: result.replayed,
    synced: result.sync ? { branches: result.sync.branches, synced_at: result.sync.synced_at } : null,
    published: result.publish ?? null,
    ms: Math.round(s.ms),
    state_file: s.stateFile,
  };
}

export function summaryLines(s: SummaryInput): string[] {
  const { plan, result } = s;
  const secs = (s.ms / 1000).toFixed(1);
  const lines = [
    `Pushed ${s.file} to brand ${plan.brand_id} in ${secs} s (${result.done} step${result.done === 1 ? '' : 's'}${result.replayed ? `, ${result.replayed} replayed` : ''}):`,
    `  created    ${countsText(plan.created)}`,
    `  updated    ${countsText(plan.updated)}`,
    `  unchanged  ${total(plan.unchanged) ? countsText(plan.unchanged) : 'nothing'}`,
    `  links      ${plan.links} made, ${plan.unlinks} removed`,
  ];
  if (result.publish) {
    const p = result.publish;
    lines.push(
      `Published version ${p.version} to branch${p.branches.length === 1 ? '' : 'es'} ${p.branches.join(', ')}${p.providers.length ? ` (providers ${p.providers.join(', ')})` : ''}.`,
    );
  } else if (result.noBranches)
    lines.push(`Synced, but no branch carries brand ${plan.brand_id}: nothing published.`);
  return lines;
}
