import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eagerFactories } from '../scripts/eager-factories.mjs';
import { REPO } from './helpers/tmp.js';

/** A bundle shaped as ncc writes it, whose factories record what `this` they see. */
const BUNDLE = [
  'var __webpack_modules__={',
  '1:(e,t,n)=>{t.a=n(2).b+1},',
  '2:function(e){e.exports={b:41,self:this===e.exports}},',
  '3:e=>{e.exports=(()=>this)()},',
  '4:(e,t)=>{t.f=function(){return this}},',
  '5:e=>{e.exports=typeof arguments}',
  '};',
  'function req(id){const m={exports:{}};__webpack_modules__[id].call(m.exports,m,m.exports,req);return m.exports}',
  'globalThis.out=[req(1).a,req(2).self,req(3),typeof req(4).f,req(5)];',
].join('');

/** Runs the bundle as an ES module would run: strict, `this` undefined, `arguments` those of its caller. */
function evaluate(code: string): unknown {
  const g = globalThis as { out?: unknown };
  new Function(`"use strict";${code}`).call(undefined, 'caller argument');
  const out = g.out;
  delete g.out;
  return out;
}

describe('eagerFactories (scripts/bundle.mjs)', () => {
  it('puts every module factory in parentheses, as plain functions where `this` does not change', () => {
    const { code, rewritten } = eagerFactories(BUNDLE, 'index.js');
    expect(rewritten).toBe(5);
    expect(code).toContain('1:(function(e,t,n){t.a=n(2).b+1}),');
    expect(code).toContain('2:(function(e){e.exports={b:41,self:this===e.exports}}),');
    // `this` and `arguments` in the factory's own body (an inner arrow sees them too) keep the arrow.
    expect(code).toContain('3:(e=>{e.exports=(()=>this)()}),');
    expect(code).toContain('4:(function(e,t){t.f=function(){return this}}),');
    expect(code).toContain('5:(e=>{e.exports=typeof arguments})');
    expect(evaluate(code)).toEqual(evaluate(BUNDLE));
    expect(evaluate(code)).toEqual([42, true, undefined, 'function', 'object']);
  });

  it('changes nothing a second time, and the committed bundles are already done', () => {
    const once = eagerFactories(BUNDLE, 'index.js').code;
    expect(eagerFactories(once, 'index.js')).toMatchObject({ code: once, rewritten: 0 });
    for (const bundle of ['dist/index.js', 'dist/cli/index.js']) {
      const code = readFileSync(path.join(REPO, bundle), 'utf8');
      expect(code.match(/\d+:\(function\(/g)?.length).toBeGreaterThan(80);
      expect(eagerFactories(code, bundle).rewritten).toBe(0);
    }
  });

  it('maps each edited position back to where it was', () => {
    const { code, map } = eagerFactories(BUNDLE, 'index.js');
    const { mappings, sources } = JSON.parse(map.toString()) as { mappings: string; sources: string[] };
    expect(sources).toEqual(['index.js']);
    expect(mappings.length).toBeGreaterThan(0);
    // t.a=… moved right by the 10 characters of "(function(" minus the 1 of "(" it replaced plus the
    // arrow's "=>": the map is magic-string's, checked here only for being there and covering the line.
    expect(code.indexOf('t.a=')).toBeGreaterThan(BUNDLE.indexOf('t.a='));
  });
});
