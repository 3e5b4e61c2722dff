import { InputError } from '../../errors.js';
import { readJsonl } from '../../io/jsonl.js';
import { validateLine } from '../../io/validate.js';
import { predictionSchema, type Agent, type Source, type TrajData } from './contract.js';
import { extractTrajectories } from './extract/index.js';

/** One instance's prediction, from a line of the extracted form or from a raw trajectory. */
export interface PredictionRecord {
  id: string;
  traj: TrajData;
  patch: string;
  commit?: string;
  source: Source;
}

const WHAT = 'a prediction {instance_id, traj_data: {pred_steps, pred_files, pred_spans}, model_patch}';

/** Reads the predictions (`agent: extracted`, the default, or raw trajectories); one per instance. */
export async function loadPredictions(
  files: readonly string[],
  agent: Agent | 'extracted',
): Promise<PredictionRecord[]> {
  const out: PredictionRecord[] = [];
  if (agent === 'extracted') {
    for (const file of files) {
      for await (const { line, value } of readJsonl(file)) {
        const p = validateLine(predictionSchema, value, file, line, WHAT);
        out.push({
          id: (p.instance_id ?? p.original_inst_id)!,
          traj: p.traj_data,
          patch: p.model_patch ?? '',
          commit: p.commit || undefined,
          source: { file, line },
        });
      }
    }
  } else {
    for (const e of await extractTrajectories(files, agent)) {
      out.push({ id: e.instance_id, traj: e.traj_data, patch: e.model_patch, source: e.source });
    }
  }
  const seen = new Map<string, Source>();
  for (const p of out) {
    checkSpans(p);
    const first = seen.get(p.id);
    if (first) {
      const at = first.file === p.source.file ? `line ${first.line}` : `${first.file}:${first.line}`;
      throw new InputError(
        p.source,
        `duplicate instance_id ${JSON.stringify(p.id)} (first at ${at}); expected one prediction per instance`,
      );
    }
    seen.set(p.id, p.source);
  }
  return out;
}

/** A reversed range would count negative lines; the evaluator accepts it, groundgate says so. */
function checkSpans(p: PredictionRecord): void {
  const where = [
    ...p.traj.pred_steps.map((s, i) => [`traj_data.pred_steps[${i}].spans`, s.spans] as const),
    ['traj_data.pred_spans', p.traj.pred_spans] as const,
  ];
  for (const [field, spans] of where) {
    for (const [file, list] of Object.entries(spans)) {
      list.forEach((s, i) => {
        if (s.start > 0 && s.end > 0 && s.start > s.end) {
          throw new InputError(
            p.source,
            `field "${field}.${file}[${i}]": found start ${s.start} > end ${s.end}; expected start ≤ end`,
          );
        }
      });
    }
  }
}
