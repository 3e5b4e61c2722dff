// What judging notices about a run beyond its verdict, kept in the high bits of its flags word so that a merge
// of partials carries them as a run does: the signs of data read wrongly (an unmapped id, a unit, a refusal
// worded otherwise) that misread.ts looks for over every run.

/** The run's retrieved_ids is empty. */
export const NO_RETRIEVED = 1 << 24;
/** An answered run (not refused) cites nothing. */
export const UNCITED = 1 << 25;
/** An answered run whose claim reads like a refusal (see looksLikeRefusal). */
export const LOOKS_REFUSED = 1 << 26;

/**
 * Wordings of "I cannot answer that" that pipelines use, lowercased. Not a refusal rule: a sign that the
 * configured rule (refusal_token, refusal:) misses how this pipeline refuses.
 */
const REFUSAL_LIKE =
  /\b(?:i (?:do not|don't|don’t) know|i (?:could not|couldn't|couldn’t|cannot|can't|can’t|was unable to|am unable to) (?:find|answer|determine|locate)|(?:is )?not (?:in|found in|mentioned in|provided in|present in|available in) (?:the |this )?(?:context|docs|documents|documentation|sources|provided)|no (?:relevant |specific )?information (?:about|on|regarding|in|was|is|available|found)|i (?:do not|don't|don’t) have (?:enough |any |the )?(?:information|context|details)|(?:cannot|can't|can’t) be determined|(?:does not|doesn't|doesn’t|do not|don't|don’t) (?:mention|say|contain|specify|provide)|unable to (?:find|answer)|not enough (?:information|context))/;

/** Whether a claim, lowercased, reads like a refusal. */
export const looksLikeRefusal = (lowerClaim: string): boolean => REFUSAL_LIKE.test(lowerClaim);
