import { describe, expect, it } from 'vitest';
import { mixesScripts, skeleton } from '../src/claims/confusables.js';
import { contracted, disguisedNegation, isNegation, negatesAt } from '../src/claims/negation.js';
import { tokensAt } from '../src/claims/normalize.js';
import {
  canonicalNumber,
  isNumberToken,
  numberPattern,
  numberWord,
  takesUnitWord,
} from '../src/claims/numbers.js';
import { leads, prefixedCurrency, unitOf } from '../src/claims/units.js';
import { containsWord } from '../src/grounded-answer/containment.js';

/** The parts of normalized matching one at a time (src/claims/), each value written by hand. */

describe('numbers.ts', () => {
  const NUMBER = new RegExp(`^${numberPattern('[A-Za-z0-9]')}$`);
  const reads = (text: string) => NUMBER.test(text);

  it('reads a number with its sign, groups, fraction, exponent, magnitude and version as one', () => {
    for (const whole of [
      '2',
      '-2',
      '\u22122',
      '2,000',
      '2,000.5',
      '2.5',
      '.5',
      '1.2.3',
      '1/2',
      '3/4',
      '10^10',
      '1e10',
    ])
      expect([whole, reads(whole)]).toEqual([whole, true]);
    for (const whole of ['2k', '20K', '2M', '2mn', '2bn'])
      expect([whole, reads(whole)]).toEqual([whole, true]);
    // Not one number: a group of four digits, a magnitude against more letters, a sign with no digit.
    for (const part of ['2,0000', '2Mb', '2kg', '-', '2.'])
      expect([part, reads(part)]).toEqual([part, false]);
  });

  it('writes each number one way, never converting it', () => {
    expect(canonicalNumber('2,000')).toBe('2000');
    expect(canonicalNumber('09')).toBe('9');
    expect(canonicalNumber('.5')).toBe('0.5');
    expect(canonicalNumber('\u22122')).toBe('-2');
    expect(canonicalNumber('-09.50')).toBe('-9.50');
    expect(canonicalNumber('20K')).toBe('20k');
    expect(canonicalNumber('2M')).toBe('2mn');
    expect(canonicalNumber('2mn')).toBe('2mn');
    expect(canonicalNumber('2bn')).toBe('2bn');
    expect(canonicalNumber('1E10')).toBe('1e10');
    expect(canonicalNumber('10^\u22123')).toBe('10^-3');
    expect(canonicalNumber('1.2.3')).toBe('1.2.3');
    expect(canonicalNumber('1.10')).toBe('1.10');
    expect(canonicalNumber('0')).toBe('0');
  });

  it('reads number words from zero to ninety, tens taking a unit word', () => {
    expect(numberWord('zero')).toBe(0);
    expect(numberWord('nineteen')).toBe(19);
    expect(numberWord('ninety')).toBe(90);
    expect(numberWord('hundred')).toBeUndefined();
    expect([20, 30, 90].map(takesUnitWord)).toEqual([true, true, true]);
    expect([0, 10, 19, 25].map(takesUnitWord)).toEqual([false, false, false, false]);
  });

  it('tells a number token by its first digit, after a minus sign', () => {
    expect(['2', '2 gb', '-2', '-2 gb', '0.5', '2nd'].map(isNumberToken)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['v3', '-', '-x', '', 'gb'].map(isNumberToken)).toEqual([false, false, false, false, false]);
  });
});

describe('units.ts', () => {
  it('reads each unit one way, bits and bytes apart by case', () => {
    expect(unitOf('Kb', 'kb')).toBe('kbit');
    expect(unitOf('KB', 'kb')).toBe('kb');
    expect(unitOf('kb', 'kb')).toBe('kb');
    expect(unitOf('Mb', 'mb')).toBe('mbit');
    expect(unitOf('B', 'b')).toBe('byte');
    expect(unitOf('b', 'b')).toBeUndefined();
    expect(unitOf('\u03bcs', '\u03bcs')).toBe('\u00b5s');
    expect(unitOf('\u00b5s', '\u00b5s')).toBe('\u00b5s');
    expect(unitOf('RMB', 'rmb')).toBe('cny');
    expect(unitOf('yuan', 'yuan')).toBe('cny');
    expect(unitOf('¥', '¥')).toBe('jpy');
    expect(unitOf('apples', 'apples')).toBeUndefined();
  });

  it('lets currencies lead their number, a prefixed sign naming another currency', () => {
    expect(['usd', 'eur', 'cny', 'c$'].map(leads)).toEqual([true, true, true, true]);
    expect(['gb', '%', 'ms'].map(leads)).toEqual([false, false, false]);
    expect(prefixedCurrency('C', '$')).toBe('c$');
    expect(prefixedCurrency('NZ', '$')).toBe('nz$');
    expect(prefixedCurrency('US', '$')).toBe('usd');
    expect(prefixedCurrency('CN', '¥')).toBe('cny');
    expect(prefixedCurrency('costs', '$')).toBeUndefined();
    expect(prefixedCurrency('c', '$')).toBeUndefined();
  });
});

describe('negation.ts', () => {
  const negates = (text: string, at: number) => negatesAt(text.split(' '), at);

  it('reads not, no, never, nor, neither and without as negations, unless they open a bound', () => {
    for (const word of ['not', 'no', 'never', 'nor', 'neither', 'without'])
      expect(negates(`${word} 2`, 0)).toBe(true);
    expect(negates('no more than', 0)).toBe(false);
    expect(negates('not later than', 0)).toBe(false);
    expect(negates('no more 2', 0)).toBe(true);
    expect(negates('never exceed', 0)).toBe(false);
    expect(negates('not exceeds', 0)).toBe(false);
    expect(negates('not to exceed', 0)).toBe(false);
    expect(negates('not to', 0)).toBe(true);
    expect(negates('no. 2', 0)).toBe(false);
    expect(negates('x not', 0)).toBe(false);
  });

  it('opens contractions, with or without their apostrophe', () => {
    expect(contracted('doesnt')).toBe('does');
    expect(contracted('cannot')).toBe('can');
    expect(contracted('wont')).toBe('will');
    expect(contracted('does')).toBeUndefined();
    expect(['not', 'no', 'doesnt', 'no.'].map(isNegation)).toEqual([true, true, false, false]);
  });

  it('reads a mixed-script word by what it imitates, a word of one script as itself', () => {
    expect(skeleton('n\u043et')).toBe('not');
    expect(mixesScripts('n\u043et')).toBe(true);
    expect(mixesScripts('\u043f\u043e')).toBe(false);
    expect(mixesScripts('not')).toBe(false);
    expect(disguisedNegation('n\u043et')).toBe('not');
    expect(disguisedNegation('d\u043eesnt')).toBe('doesnt');
    expect(disguisedNegation('\u043f\u043e')).toBeUndefined();
    expect(disguisedNegation('n\u043ete')).toBeUndefined();
  });
});

describe('tokensAt (normalize.ts)', () => {
  it('says where each token was read, a quantity from its sign to its unit', () => {
    // "C$20 -2GB no. 7" : c$20 at 0..4, -2 at 5..7 with GB to 9, `no.` (number) at 10..12, 7 at 14..15.
    expect(tokensAt('C$20 -2GB no. 7')).toEqual({
      tokens: ['20 c$', '-2 gb', 'number', '7'],
      spans: [0, 4, 4, 5, 7, 9, 10, 12, 12, 14, 15, 15],
    });
  });
});

describe('containsWord (containment.ts)', () => {
  it('looks past an occurrence inside a longer number for an overlapping one', () => {
    // "1 1" occurs at 1 (inside "11") and at 3, which overlaps it.
    expect(containsWord('11 1 1', '1 1')).toBe(true);
    expect(containsWord('11 1 1', '1 1', (at) => at === 3)).toBe(true);
    expect(containsWord('11 1 1', '1 1', (at) => at !== 3)).toBe(false);
  });
});
