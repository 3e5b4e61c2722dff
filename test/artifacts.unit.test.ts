import { strToU8, Zip, ZipDeflate, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { baseOf, isForkPullRequest, triggeringRun } from '../src/action/event.js';
import { pickReport } from '../src/github/artifacts.js';
import { parseRepo } from '../src/github/client.js';
import { repoOfRemote } from '../src/github/local.js';
import { unzipText, ZipError } from '../src/github/unzip.js';
import { ageOf, describeBaselineSource } from '../src/report/baseline-source.js';

/** A zip written as a stream, as actions/upload-artifact writes it: sizes in data descriptors after each entry. */
function streamedZip(entries: [string, string | Uint8Array][]): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  for (const [name, data] of entries) {
    const file = new ZipDeflate(name, { level: 6 });
    zip.add(file);
    file.push(typeof data === 'string' ? strToU8(data) : data, true);
  }
  zip.end();
  return Buffer.concat(parts);
}

const first = (names: readonly string[]) => names[0];

describe('unzipText', () => {
  it('reads an entry of a streamed zip (data descriptors) after skipping a larger one', () => {
    const zip = streamedZip([
      ['logs/big.txt', 'x'.repeat(200_000)],
      ['groundgate-report.json', '{"ok":1}'],
    ]);
    // Bit 3 of the general-purpose flags: sizes follow the data.
    expect(Buffer.from(zip).readUInt16LE(6) & 8).toBe(8);
    const r = unzipText(zip, (names) => pickReport(names, 'groundgate-report.json'), 1024);
    expect(r).toEqual({ name: 'groundgate-report.json', text: '{"ok":1}' });
  });

  it('stops a zip bomb at the cap, whatever the entry declares', () => {
    const bomb = zipSync({ 'r.json': new Uint8Array(4 * 2 ** 20) });
    expect(bomb.length).toBeLessThan(10_000);
    expect(() => unzipText(bomb, first, 2 ** 20)).toThrow(
      'entry "r.json" inflates past 1 MiB; expected a report.json under that size',
    );
    expect(unzipText(bomb, first, 4 * 2 ** 20).text).toHaveLength(4 * 2 ** 20);
  });

  it('stops a large bomb soon after the cap, not at its end (the zip is fed in slices)', () => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((err, chunk) => {
      if (err) throw err;
      parts.push(chunk);
    });
    const file = new ZipDeflate('r.json', { level: 9 });
    zip.add(file);
    const mib = new Uint8Array(2 ** 20);
    for (let i = 0; i < 256; i++) file.push(mib, i === 255);
    zip.end();
    const bomb = Buffer.concat(parts);
    expect(bomb.length).toBeLessThan(400_000);
    let error: ZipError | undefined;
    try {
      unzipText(bomb, first, 2 ** 20);
    } catch (err) {
      error = err as ZipError;
    }
    expect(error?.message).toBe('entry "r.json" inflates past 1 MiB; expected a report.json under that size');
    // 256 MiB declared; stopped within one slice's worth (16 KiB of deflate, at most ~16 MiB) of the cap.
    expect(error!.inflated).toBeGreaterThan(2 ** 20);
    expect(error!.inflated).toBeLessThan(18 * 2 ** 20);
  });

  it('says what is wrong with a zip that is not one, is cut short, or lacks the report', () => {
    expect(() => unzipText(strToU8('not a zip'), first, 100)).toThrow(/holds no report \(found no entries\)/);
    // Text that does not compress away, so the cut falls inside the entry's data.
    const text = Array.from({ length: 5_000 }, (_, i) => ((i * 7919) % 10007).toString(36)).join(',');
    const whole = streamedZip([['r.json', text]]);
    expect(whole.length).toBeGreaterThan(5_000);
    expect(() => unzipText(whole.subarray(0, 2_000), first, 10 ** 6)).toThrow(
      'not a readable zip (invalid zip data)',
    );
    const other = zipSync({ 'a.txt': strToU8('a'), 'b.txt': strToU8('b') });
    expect(() => unzipText(other, (n) => pickReport(n, 'groundgate-report.json'), 100)).toThrow(
      'holds no report (found "a.txt", "b.txt")',
    );
    const latin1 = zipSync({ 'r.json': new Uint8Array([0x7b, 0xe9, 0x7d]) });
    expect(() => unzipText(latin1, first, 100)).toThrow('entry "r.json" is not UTF-8 text');
  });
});

describe('pickReport', () => {
  it('the report by name at any depth, else the only JSON file', () => {
    expect(pickReport(['x/groundgate-report.json', 'a.json'], 'groundgate-report.json')).toBe(
      'x/groundgate-report.json',
    );
    expect(pickReport(['report.json', 'notes.txt'], 'groundgate-report.json')).toBe('report.json');
    expect(pickReport(['a.json', 'b.json'], 'groundgate-report.json')).toBeUndefined();
  });
});

describe('the baseline line', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  it('ages in the largest whole unit', () => {
    expect(ageOf(now - 30_000, now)).toBe('new');
    expect(ageOf(now - 60_000, now)).toBe('1 minute old');
    expect(ageOf(now - 59 * 60_000, now)).toBe('59 minutes old');
    expect(ageOf(now - 47 * 3_600_000, now)).toBe('47 hours old');
    expect(ageOf(now - 5 * 86_400_000, now)).toBe('5 days old');
    expect(ageOf(now + 3_600_000, now)).toBe('new');
    expect(ageOf(Number.NaN, now)).toBe('');
  });

  it('names the commit, and the fallback with the base commit that had none', () => {
    const how = { commit: (s: string) => `<${s.slice(0, 7)}>`, escape: (t: string) => `[${t}]`, now };
    const source = {
      commit: 'a'.repeat(40),
      committed_at: '2026-11-23T10:00:00Z',
      run_id: 3,
      branch: 'main',
    };
    expect(describeBaselineSource(source, how)).toBe(
      'Compared with <aaaaaaa>, the base commit (run 3, 2 days old).',
    );
    expect(describeBaselineSource({ ...source, fallback_from: 'b'.repeat(40) }, how)).toBe(
      'Compared with <aaaaaaa>, the newest report on [main]: the base commit <bbbbbbb> has none (run 3, 2 days old).',
    );
    expect(describeBaselineSource(source, { ...how, now: undefined })).toBe(
      'Compared with <aaaaaaa>, the base commit (run 3).',
    );
  });
});

describe('repositories and events', () => {
  it('owner/name from remotes of every form, GitHub Enterprise included', () => {
    for (const url of [
      'https://github.com/acme/rag.git',
      'https://github.com/acme/rag',
      'git@github.com:acme/rag.git',
      'https://github.com/acme/rag/',
      'ssh://git@github.com/acme/rag.git',
    ])
      expect(repoOfRemote(url)).toEqual({ owner: 'acme', repo: 'rag', host: 'github.com' });
    expect(repoOfRemote('ssh://git@GHE.example.com:2222/acme/rag.git')).toEqual({
      owner: 'acme',
      repo: 'rag',
      host: 'ghe.example.com',
    });
    expect(repoOfRemote('/srv/git/rag')).toEqual({ owner: 'git', repo: 'rag' });
    expect(repoOfRemote(undefined)).toBeUndefined();
    expect(parseRepo('acme/rag/extra')).toBeUndefined();
    expect(parseRepo('-acme/rag')).toBeUndefined();
  });

  it('the base of a pull request, a push, a merge group; not of other events', () => {
    const env = {};
    expect(
      baseOf({ name: 'pull_request', payload: { pull_request: { base: { sha: 'b1', ref: 'main' } } } }, env),
    ).toEqual({ sha: 'b1', branch: 'main' });
    expect(baseOf({ name: 'push', payload: { before: 'p1', ref: 'refs/heads/dev' } }, env)).toEqual({
      sha: 'p1',
      branch: 'dev',
    });
    // A new branch's first push has nothing before it.
    expect(baseOf({ name: 'push', payload: { before: '0'.repeat(40), ref: 'refs/heads/x' } }, env)).toEqual({
      sha: undefined,
      branch: 'x',
    });
    expect(
      baseOf(
        { name: 'merge_group', payload: { merge_group: { base_sha: 'm1', base_ref: 'refs/heads/main' } } },
        env,
      ),
    ).toEqual({ sha: 'm1', branch: 'main' });
    expect(baseOf({ name: 'schedule', payload: {} }, env)).toEqual({
      why: 'baseline: auto compares with the base of a pull_request, push or merge_group event, not schedule; no deltas, max_drop gates skipped',
    });
  });

  it('a fork is told apart by the head repository of a pull_request event only', () => {
    const pr = (full_name: string, name = 'pull_request') => ({
      name,
      repository: 'acme/rag',
      payload: { pull_request: { head: { repo: { full_name } } } },
    });
    expect(isForkPullRequest(pr('forker/rag'))).toBe(true);
    expect(isForkPullRequest(pr('ACME/rag'))).toBe(false);
    // pull_request_target runs with the base repository's token: it can comment.
    expect(isForkPullRequest(pr('forker/rag', 'pull_request_target'))).toBe(false);
  });

  it('the triggering run of a workflow_run event, with only well-typed fields', () => {
    expect(
      triggeringRun({
        name: 'workflow_run',
        payload: {
          workflow_run: {
            id: 5,
            head_sha: 'c'.repeat(40),
            head_branch: 'f',
            event: 'pull_request',
            head_repository: { owner: { login: 'forker' } },
            pull_requests: [{ number: 3, head: { sha: 'd' } }, { number: 'x' }],
          },
        },
      }),
    ).toEqual({
      id: 5,
      headSha: 'c'.repeat(40),
      headBranch: 'f',
      headOwner: 'forker',
      event: 'pull_request',
      pullRequests: [{ number: 3, headSha: 'd' }],
    });
    expect(triggeringRun({ name: 'push', payload: {} })).toBeUndefined();
    expect(triggeringRun({ name: 'workflow_run', payload: { workflow_run: { id: '5' } } })).toBeUndefined();
  });
});
