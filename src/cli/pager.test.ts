import { describe, expect, it } from 'vitest';
import { pagerCommand, splitCommand } from './pager.js';

describe('which pager', () => {
  it('PARTNER_PAGER, then PAGER, then less -FRX', () => {
    expect(pagerCommand({})).toEqual(['less', '-FRX']);
    expect(pagerCommand({ PAGER: 'more' })).toEqual(['more']);
    expect(pagerCommand({ PAGER: 'more', PARTNER_PAGER: 'less -S' })).toEqual(['less', '-S']);
  });

  it('empty or cat means no pager (an empty PARTNER_PAGER wins over PAGER)', () => {
    expect(pagerCommand({ PAGER: '' })).toBeUndefined();
    expect(pagerCommand({ PAGER: 'cat' })).toBeUndefined();
    expect(pagerCommand({ PAGER: '/bin/cat' })).toBeUndefined();
    expect(pagerCommand({ PARTNER_PAGER: '', PAGER: 'less' })).toBeUndefined();
    expect(pagerCommand({ PAGER: 'cat -v' })).toEqual(['cat', '-v']);
  });

  it('splits words, keeping quoted ones whole', () => {
    expect(splitCommand(`less -R "+/two words" '-P x'`)).toEqual(['less', '-R', '+/two words', '-P x']);
    expect(splitCommand('   ')).toEqual([]);
  });
});
