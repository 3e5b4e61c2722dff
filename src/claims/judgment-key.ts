import { createHash } from 'node:crypto';

/** One binary question for the judge: does this claim, answering this question, state this gold fact? */
export interface JudgeQuestion {
  question: string;
  claim: string;
  fact: string;
}

/**
 * The cache key of a judgment: the hex sha256 of the UTF-8 of a canonical JSON object holding everything
 * that could change the verdict — the three texts, the model asked and the prompt (its id and the sha256 of
 * its text). Strings are NFC-normalized first, so the same text typed on another system keeps its key; keys
 * are in code-unit order with no whitespace, as JSON.stringify writes them (Python gets the same bytes from
 * `json.dumps(o, sort_keys=True, separators=(',', ':'), ensure_ascii=False)`).
 */
export function judgmentKey(q: JudgeQuestion, model: string, prompt: { id: string; sha256: string }): string {
  const canonical = JSON.stringify({
    claim: q.claim.normalize('NFC'),
    fact: q.fact.normalize('NFC'),
    model: model.normalize('NFC'),
    prompt: prompt.id.normalize('NFC'),
    prompt_sha256: prompt.sha256.normalize('NFC'),
    question: q.question.normalize('NFC'),
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
