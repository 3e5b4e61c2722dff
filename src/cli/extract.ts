import { displayPath, UsageError } from '../errors.js';
import { AGENTS, type Agent } from '../suites/context/contract.js';
import { extractTrajectories, trajectoryFiles } from '../suites/context/extract/index.js';
import { commandOf, writeOutput, type CliIo } from './command.js';
import { refuseInputsAsOutputs } from '../run-inputs.js';
import { declareCommand, parseOptions } from './options.js';

const EXTRACT = declareCommand({
  name: 'extract',
  summary: 'turn agent trajectories into ContextBench predictions (for the context suite)',
  usage: 'groundgate extract --agent AGENT PATH... [--out FILE]',
  description:
    'Turns raw agent trajectories into the ContextBench prediction form the context suite reads, one JSON line per instance: {"instance_id", "traj_data": {"pred_steps", "pred_files", "pred_spans", "pred_symbols"?}, "model_patch"}. A PATH is a trajectory file or a folder searched for them.',
  sections: [
    {
      title: 'Agents',
      body: `  miniswe     mini-SWE-agent *.traj.json: <explore_context> steps (else the files bash commands read),
              the last <PATCH_CONTEXT> as final context, info.submission as patch
  sweagent    SWE-agent *.checkpoints.jsonl: str_replace_editor view --view_range steps, the
              patch_context record as final context
  openhands   OpenHands output.jsonl (read/run actions, test_result.git_patch) and
              llm_completions/<instance>/*.json (the last turn's tool calls)
  agentless   Agentless *_traj.json: final files, related elements as symbols, edit-location lines
  prometheus  Prometheus *.log: CONTEXT blocks as steps, the last AGGREGATED CONTEXT as final context`,
    },
  ],
  options: {
    agent: { short: 'a', type: 'string', arg: 'AGENT', help: `one of ${AGENTS.join(', ')} (required)` },
    out: {
      short: 'o',
      type: 'string',
      arg: 'FILE',
      help: 'write the predictions to FILE (default: standard output)',
    },
  },
  exitStatus: '0 predictions written, 2 usage or input error (a trajectory that cannot be read).',
  example: 'groundgate extract --agent miniswe runs/miniswe/ --out predictions.jsonl',
});

export const extractCommand = commandOf(EXTRACT, async (argv: readonly string[], io: CliIo) => {
  const { values, positionals } = parseOptions(EXTRACT, argv);
  const agent = values.agent as Agent | undefined;
  if (!agent || !AGENTS.includes(agent)) {
    throw new UsageError(
      `${agent === undefined ? 'missing --agent' : `--agent ${JSON.stringify(agent)}`}: expected one of ${AGENTS.join(', ')}`,
    );
  }
  if (positionals.length === 0) throw new UsageError('expected at least one trajectory PATH');

  const files = trajectoryFiles(positionals, agent);
  refuseInputsAsOutputs(
    [{ flag: '--out', file: values.out }],
    files.map((file) => ({ file, what: 'a trajectory' })),
  );
  const predictions = await extractTrajectories(files, agent);
  const text = predictions
    .map(({ instance_id, traj_data, model_patch }) => JSON.stringify({ instance_id, traj_data, model_patch }))
    .map((line) => `${line}\n`)
    .join('');
  if (values.out === undefined) {
    io.stdout(text);
  } else {
    writeOutput(values.out, text);
    const steps = predictions.reduce((n, p) => n + p.traj_data.pred_steps.length, 0);
    io.stdout(
      `wrote ${predictions.length} prediction${predictions.length === 1 ? '' : 's'} (${steps} steps) to ${displayPath(values.out)}\n`,
    );
  }
  return 0;
});
