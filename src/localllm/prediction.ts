/**
 * Tokens predicted ahead and checked in one step (decision 96). Generating on a CPU is bound by
 * reading the weights once per step (Qwen-1.5B: ~6 tokens/s), while checking a few more tokens in
 * the same step costs little more (it reads a prompt at ~57 tokens/s): a predicted token that the
 * model would have chosen anyway comes for the price of part of a step. The answer is the same;
 * only its speed changes.
 *
 * - `input-lookup`: node-llama-cpp's InputLookupTokenPredictor finds the last tokens
 *   generated in the prompt and predicts what followed them there: answers that copy their input
 *   (a sorted list of the input's numbers, a merge of the documents) are predicted for free.
 * - `draft`: DraftSequenceTokenPredictor, a smaller model of the same tokenizer drafting (e.g.
 *   Qwen2.5-Coder-0.5B for the 1.5B); it reads every prompt too, on a sequence of its own.
 * - `off` (default: on one thread of a busy CPU neither paid, decision 96): one token per step.
 */
import {
  DraftSequenceTokenPredictor,
  InputLookupTokenPredictor,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type TokenPredictor,
} from 'node-llama-cpp';
import { LOCAL_LLM_DEFAULTS } from './defaults';

/** How a sequence predicts tokens ahead. */
export type Prediction = 'off' | 'input-lookup' | 'draft';

export const PREDICTIONS: readonly Prediction[] = ['off', 'input-lookup', 'draft'];

/** Input lookup: tokens of the answer's end that must recur in the prompt, and tokens predicted after them at most. */
export interface InputLookup {
  patternMinTokens: number;
  predictMaxTokens: number;
}

/** Predictions checked so far, summed over the sequences (node-llama-cpp's `tokenPredictions`). */
export interface PredictionStats {
  /** Predicted tokens the model agreed with. */
  validated: number;
  /** Predicted tokens it did not. */
  refuted: number;
}

/** The sequences of a context, each with its own predictor, and what disposing them needs. */
export interface PredictingSequences {
  sequences: LlamaContextSequence[];
  stats(): PredictionStats;
  /** Frees the draft model, if any (the target context is the caller's). */
  dispose(): Promise<void>;
}

/** Makes `count` sequences of `context`, each predicting as `prediction` says (`draft` needs `draftModelPath`). */
export async function predictingSequences(o: {
  llama: Llama;
  context: LlamaContext;
  count: number;
  prediction: Prediction;
  draftModelPath?: string;
  /** Input lookup's pattern and prediction lengths (default: LOCAL_LLM_DEFAULTS.inputLookup). */
  inputLookup?: InputLookup;
  threads: number;
}): Promise<PredictingSequences> {
  let predictor: () => TokenPredictor | undefined = () => undefined;
  let dispose = async () => {};
  if (o.prediction === 'input-lookup') {
    const { patternMinTokens, predictMaxTokens } = o.inputLookup ?? LOCAL_LLM_DEFAULTS.inputLookup;
    predictor = () =>
      new InputLookupTokenPredictor({ patternLength: { min: patternMinTokens }, predictionLength: { max: predictMaxTokens } });
  } else if (o.prediction === 'draft') {
    if (!o.draftModelPath) throw new Error('Prediction by a draft model needs the draft model (--draft-model).');
    const draftModel = await o.llama.loadModel({ modelPath: o.draftModelPath });
    // One draft sequence per target sequence, as long: it holds the same prompt and answer.
    const draftContext = await draftModel.createContext({ contextSize: o.context.contextSize, sequences: o.count, threads: o.threads });
    predictor = () =>
      new DraftSequenceTokenPredictor(draftContext.getSequence(), {
        minTokens: LOCAL_LLM_DEFAULTS.draftTokens.min,
        maxTokens: LOCAL_LLM_DEFAULTS.draftTokens.max,
      });
    dispose = async () => {
      await draftContext.dispose();
      await draftModel.dispose();
    };
  }
  const sequences = Array.from({ length: o.count }, () => {
    const tokenPredictor = predictor();
    return o.context.getSequence(tokenPredictor ? { tokenPredictor } : {});
  });
  return {
    sequences,
    stats: () =>
      sequences.reduce(
        (sum, s) => ({ validated: sum.validated + s.tokenPredictions.validated, refuted: sum.refuted + s.tokenPredictions.refuted }),
        { validated: 0, refuted: 0 },
      ),
    dispose,
  };
}
